import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useSecureAccountMutation } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { AuthCard } from '../../components/AuthCard';
import { Trans, useTranslation } from '../../i18n';

// The "Wasn't you?" link of the new-browser and password-changed e-mails. Opening it changes
// nothing: mail scanners open links too, and locking everyone out of an account is the owner's
// decision, so the page explains what will happen and waits for the button.
export function SecureAccountPage() {
  const { t } = useTranslation('member');
  const { token = '' } = useParams();
  const [secure, { isLoading, isSuccess, data, error }] = useSecureAccountMutation();
  const [failed, setFailed] = useState(false);

  const submit = async () => {
    if (isLoading) return;
    setFailed(false);
    try {
      await secure({ token }).unwrap();
    } catch {
      setFailed(true);
    }
  };

  if (isSuccess) {
    return (
      <AuthCard title={t('secure.title')} titleId="secure-title">
        <div className="panel panel--success" role="status">
          <h2 className="panel__title">{t('secure.done')}</h2>
          <p>{data?.message}</p>
          <p>{t('secure.openLink')}</p>
          <Link className="button" to="/login">
            {t('secure.toSignIn')}
          </Link>
        </div>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title={t('secure.title')}
      titleId="secure-title"
      lead={<p>{t('secure.lead')}</p>}
    >
      <div className="stack">
        <ul>
          <li>{t('secure.sessions')}</li>
          <li>{t('secure.browsers')}</li>
          <li>{t('secure.mail')}</li>
        </ul>
        <p>{t('secure.money')}</p>
        {failed ? (
          <div className="panel panel--error" role="alert">
            <h2 className="panel__title">{t('secure.failed')}</h2>
            <p>{errorMessage(error, t('secure.wrong'))}</p>
            <p>
              <Trans t={t} i18nKey="secure.expired" components={{ forgot: <Link to="/forgot" /> }} />
            </p>
          </div>
        ) : null}
        <button type="button" className="button button--danger" onClick={() => void submit()} disabled={isLoading} aria-busy={isLoading || undefined}>
          {isLoading ? t('secure.busy') : t('secure.submit')}
        </button>
      </div>
    </AuthCard>
  );
}
