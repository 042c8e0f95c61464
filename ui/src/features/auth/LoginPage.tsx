import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { isLoginPending, useLoginMutation } from '../../api/enhanced';
import { AuthCard } from '../../components/AuthCard';
import { FormError, useFormError } from '../../components/form/FormError';
import { SubmitButton } from '../../components/form/SubmitButton';
import { PasswordField, EmailField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useToast } from '../../components/toast/useToast';
import { useRunMutation } from '../../components/useRunMutation';
import { isSuspended, isTotpRequired } from './authErrors';
import { GoogleButton, GoogleReturn } from './GoogleSignIn';
import { PasskeySignIn } from './PasskeySignIn';
import { SuspendedDialog } from './SuspendedDialog';
import { TotpField } from './TotpField';
import { Trans, useTranslation } from '../../i18n';
import { loginFields, loginSchema, useFormMessages } from './validation';

export function LoginPage() {
  const { t } = useTranslation('auth');
  const say = useFormMessages();
  const navigate = useNavigate();
  const toast = useToast();
  const run = useRunMutation();
  const [login, { isLoading }] = useLoginMutation();
  const form = useSpecForm(loginSchema, loginFields, { email: '', password: '', totpCode: '', totpStep: '' });
  const { register, handleSubmit, setValue, setFocus, setError } = form;
  const fieldError = (name: (typeof loginFields)[number]) => say.field(form.fieldError(name));
  const [totpStep, setTotpStep] = useState(false);
  const [suspendedMessage, setSuspendedMessage] = useState<string | null>(null);
  // A sign-in that ended on the code page (it expired) says why here, where a new one starts.
  const { state } = useLocation();
  const [formError, setFormError] = useFormError((state as { formError?: unknown } | null)?.formError);

  useEffect(() => {
    if (totpStep) setFocus('totpCode');
  }, [totpStep, setFocus]);

  const onSubmit = handleSubmit(async ({ email, password, totpCode }) => {
    // On success RequireGuest takes the user on as soon as the session exists.
    const outcome = await run(login({ loginRequest: { email: email.trim(), password, totpCode: totpStep ? totpCode.trim() : undefined } }), {
      fallback: t('login.failed'),
      success: (data) => (isLoginPending(data) ? undefined : t('login.success')),
      form: { setError, fields: ['email', 'password'] },
      formError: setFormError,
      handled: (info) => {
        // A wrong authenticator code (the password was right): on its field.
        if (isTotpRequired(info) && totpStep) {
          setError('totpCode', { message: info.message ?? t('login.failed') }, { shouldFocus: true });
          return true;
        }
        if (isSuspended(info)) {
          setSuspendedMessage(info.message ?? t('login.suspended'));
          return true;
        }
        return false;
      },
    });
    if (!outcome.ok || !isLoginPending(outcome.data)) return;
    if (outcome.data.status === 'totp') {
      // The password was right and the account uses an authenticator app (202): its code is the
      // next step, on this page.
      setValue('totpStep', 'yes');
      setTotpStep(true);
    } else {
      // A new browser (202): the server has e-mailed a login code (the auth slice turns twoFactor
      // on), and the code page asks for it.
      toast.info(outcome.data.message || 'We sent a login code to your e-mail.');
      navigate(`/loginWithCode/${encodeURIComponent(email.trim())}`);
    }
  });

  return (
    <AuthCard
      title={t('login.title')}
      titleId="login-title"
      lead={<p>{t('login.lead')}</p>}
      footer={
        <>
          <p>
            <Link to="/forgot">{t('login.forgot')}</Link>
          </p>
          <p>
            <Trans t={t} i18nKey="login.newHere" components={{ register: <Link to="/register" /> }} />
          </p>
        </>
      }
    >
      <GoogleReturn />
      <FormError message={formError} />
      <form className="form" noValidate onSubmit={onSubmit} aria-labelledby="login-title">
        <EmailField
          label={t('login.email')}
          error={fieldError('email')}
          {...register('email')}
        />
        <PasswordField label={t('login.password')} autoComplete="current-password" error={fieldError('password')} {...register('password')} />
        {totpStep ? <TotpField registration={register('totpCode')} error={fieldError('totpCode')} /> : null}
        <SubmitButton busy={isLoading} busyLabel={t('login.busy')}>
          {totpStep ? t('login.submitWithCode') : t('login.submit')}
        </SubmitButton>
      </form>
      <PasskeySignIn />
      <GoogleButton />
      {suspendedMessage ? <SuspendedDialog message={suspendedMessage} onClose={() => setSuspendedMessage(null)} /> : null}
    </AuthCard>
  );
}
