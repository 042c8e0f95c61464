import { useEffect, useState, type FormEvent, type MouseEvent } from 'react';
import { useSearchParams } from 'react-router';
import { isLoginPending, useGetMetaQuery, useGoogleLinkMutation, type Language } from '../../api/enhanced';
import { SubmitButton } from '../../components/form/SubmitButton';
import { TextField } from '../../components/form/TextField';
import { FormError, useFormError } from '../../components/form/FormError';
import { useRunMutation } from '../../components/useRunMutation';
import { useTranslation } from '../../i18n';

// A plain link to the server's redirect flow: no third-party script, which the CSP forbids.
// Shown only when the server says Google sign-in is configured. On the sign-up page it carries
// the person's consent and language (a Google account new to us creates an account); without
// the box ticked it asks for it instead of leaving.
export function GoogleButton({ consent }: { consent?: { accepted: boolean; language: Language; onMissing: () => void } }) {
  const { t } = useTranslation('auth');
  const { data: meta } = useGetMetaQuery();
  if (!meta?.googleSignIn) return null;
  const href = consent?.accepted
    ? `/api/users/google/start?${new URLSearchParams({ acceptTerms: 'true', language: consent.language })}`
    : '/api/users/google/start';
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (consent && !consent.accepted) {
      event.preventDefault();
      consent.onMissing();
    }
  };
  return (
    <p className="auth-alt">
      <a className="button button--block button--secondary" href={href} onClick={onClick}>
        {t('google.continue')}
      </a>
    </p>
  );
}

// The server redirects back to /login?google=… when the Google sign-in could not finish by
// itself; this handles that answer.
export function GoogleReturn() {
  const { t } = useTranslation('auth');
  const [params, setParams] = useSearchParams();
  const outcome = params.get('google');
  // The failure is said above the form, and stays once the address is cleaned up.
  const [failed] = useState(outcome === 'error');

  useEffect(() => {
    if (outcome === 'error') setParams({}, { replace: true });
  }, [outcome, setParams]);

  if (failed) return <FormError message={t('google.failed')} />;
  if (outcome !== 'link' && outcome !== 'totp') return null;
  return <GoogleLinkForm needsTotp={outcome === 'totp'} />;
}

function GoogleLinkForm({ needsTotp }: { needsTotp: boolean }) {
  const { t } = useTranslation('auth');
  const run = useRunMutation();
  const [link, { isLoading }] = useGoogleLinkMutation();
  const [secret, setSecret] = useState('');
  const [totpCode, setTotpCode] = useState('');
  const [totpStep, setTotpStep] = useState(needsTotp);
  const [formError, setFormError] = useFormError();

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    const value = secret.trim();
    // An e-mailed code is digits; anything else is taken for the password.
    const proof = needsTotp ? {} : /^\d{4,10}$/.test(value) ? { code: value } : { password: secret };
    const outcome = await run(link({ googleLinkRequest: { ...proof, totpCode: totpStep ? totpCode.trim() : undefined } }), {
      fallback: t('google.failed'),
      success: (data) => (isLoginPending(data) ? undefined : t('login.success')),
      formError: setFormError,
    });
    // The proof was right and the account's authenticator code is the next step (202).
    if (outcome.ok && isLoginPending(outcome.data)) setTotpStep(true);
  };

  return (
    <>
    <FormError message={formError} />
    <form className="form" noValidate onSubmit={onSubmit} aria-label={t('google.linkLabel')}>
      {needsTotp ? (
        <p>{t('google.needsTotp')}</p>
      ) : (
        <>
          <p>{t('google.exists')}</p>
          <TextField
            label={t('google.secret')}
            type="password"
            autoComplete="current-password"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
          />
        </>
      )}
      {totpStep ? (
        <TextField
          label={t('google.totp')}
          inputMode="numeric"
          autoComplete="one-time-code"
          value={totpCode}
          onChange={(e) => setTotpCode(e.target.value)}
        />
      ) : null}
      <SubmitButton busy={isLoading} busyLabel={t('google.linking')}>
        {t('google.link')}
      </SubmitButton>
    </form>
    </>
  );
}
