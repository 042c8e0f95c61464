import { useState } from 'react';
import { Link } from 'react-router';
import { useForgotPasswordMutation } from '../../api/enhanced';
import { AuthCard } from '../../components/AuthCard';
import { SubmitButton } from '../../components/form/SubmitButton';
import { EmailField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { Trans, useTranslation } from '../../i18n';
import { forgotSchema, useFormMessages } from './validation';

export function ForgotPasswordPage() {
  const { t } = useTranslation('auth');
  const say = useFormMessages();
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const [forgotPassword, { isLoading }] = useForgotPasswordMutation();
  const form = useSpecForm(forgotSchema, ['email'], { email: '' });
  const { register, handleSubmit, setError } = form;
  const fieldError = (name: 'email') => say.field(form.fieldError(name));
  // The server answers the same whether or not the account exists (no enumeration), so the page
  // shows that answer as it is.
  const [sent, setSent] = useState<{ email: string; message: string } | null>(null);

  const onSubmit = handleSubmit(async ({ email }) => {
    const outcome = await run(forgotPassword({ forgotPasswordRequest: { email: email.trim() } }), {
      fallback: t('forgot.failed'),
      form: { setError, fields: ['email'] },
      formError: setFormError,
    });
    if (outcome.ok) setSent({ email: email.trim(), message: outcome.data.message });
  });

  return (
    <AuthCard
      title={t('forgot.title')}
      titleId="forgot-title"
      lead={!sent ? <p>{t('forgot.lead')}</p> : null}
      footer={
        <p>
          <Trans t={t} i18nKey="forgot.remembered" components={{ signin: <Link to="/login" /> }} />
        </p>
      }
    >
      {sent ? (
        <div className="panel panel--success" role="status">
          <h2 className="panel__title">{t('forgot.checkMail')}</h2>
          <p>{sent.message}</p>
          <p>{t('forgot.linkNote')}</p>
          <button type="button" className="button button--secondary" onClick={() => setSent(null)}>
            {t('forgot.another')}
          </button>
        </div>
      ) : (
        <>
          <FormError message={formError} />
          <form className="form" noValidate onSubmit={onSubmit} aria-labelledby="forgot-title">
            <EmailField
              label={t('forgot.email')}
              error={fieldError('email')}
              {...register('email')}
            />
            <SubmitButton busy={isLoading} busyLabel={t('forgot.busy')}>
              {t('forgot.submit')}
            </SubmitButton>
          </form>
        </>
      )}
    </AuthCard>
  );
}
