import { useEffect, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { isTotpStep, useLoginWithCodeMutation, useSendLoginCodeMutation } from '../../api/enhanced';
import { useAppSelector } from '../../app/hooks';
import { AuthCard } from '../../components/AuthCard';
import { FormError, useFormError } from '../../components/form/FormError';
import { SubmitButton } from '../../components/form/SubmitButton';
import { TextField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useRunMutation } from '../../components/useRunMutation';
import { selectAuth } from './authSlice';
import { isLoginExpired, isSuspended, isTotpRequired } from './authErrors';
import { SuspendedDialog } from './SuspendedDialog';
import { TotpField } from './TotpField';
import { useCooldown } from './useCooldown';
import { Trans, useTranslation } from '../../i18n';
import { loginCodeFields, loginCodeSchema, useFormMessages } from './validation';

export const RESEND_COOLDOWN_SECONDS = 60;

export function LoginWithCodePage() {
  const { t } = useTranslation('auth');
  const say = useFormMessages();
  const { email = '' } = useParams();
  const navigate = useNavigate();
  const run = useRunMutation();
  // Arriving from the login page, a code has just been sent: resending at once would only
  // invalidate it, so the button starts cooling down.
  const { twoFactor } = useAppSelector(selectAuth);
  const cooldown = useCooldown(twoFactor ? RESEND_COOLDOWN_SECONDS : 0);
  const [loginWithCode, { isLoading }] = useLoginWithCodeMutation();
  const [sendLoginCode, { isLoading: isSending }] = useSendLoginCodeMutation();
  const form = useSpecForm(loginCodeSchema, loginCodeFields, { loginCode: '', totpCode: '', totpStep: '' });
  const { register, handleSubmit, setValue, setFocus, setError } = form;
  const fieldError = (name: (typeof loginCodeFields)[number]) => say.field(form.fieldError(name));
  const [totpStep, setTotpStep] = useState(false);
  const [suspendedMessage, setSuspendedMessage] = useState<string | null>(null);
  const [formError, setFormError] = useFormError();

  useEffect(() => {
    if (totpStep) setFocus('totpCode');
  }, [totpStep, setFocus]);

  const onSubmit = handleSubmit(async ({ loginCode, totpCode }) => {
    const outcome = await run(
      loginWithCode({
        email,
        loginWithCodeRequest: { loginCode: loginCode.trim(), totpCode: totpStep ? totpCode.trim() : undefined },
      }),
      {
        fallback: t('login.failed'),
        success: (data) => (isTotpStep(data) ? undefined : t('login.success')),
        form: { setError, fields: ['loginCode'] },
        formError: setFormError,
        handled: (info) => {
          // A wrong authenticator code (the e-mailed one was right and stays valid): on its field.
          if (isTotpRequired(info) && totpStep) {
            setError('totpCode', { message: info.message ?? t('login.failed') }, { shouldFocus: true });
            return true;
          }
          if (isSuspended(info)) {
            setSuspendedMessage(info.message ?? t('login.suspended'));
            return true;
          }
          // Said on the login page, where the password starts a new sign-in.
          return isLoginExpired(info);
        },
      },
    );
    if (outcome.ok && isTotpStep(outcome.data)) {
      // The code was right and the account uses an authenticator app (202): its code is the next
      // step, sent together with the e-mailed one.
      setValue('totpStep', 'yes');
      setTotpStep(true);
    } else if (outcome.ok) navigate('/my-account', { replace: true });
    else if (isLoginExpired(outcome.error)) navigate('/login', { replace: true, state: { formError: outcome.message } });
  });

  const resend = async () => {
    if (cooldown.secondsLeft > 0 || isSending) return;
    // The browser's pending sign-in travels as its HttpOnly cookie; the body is for API clients.
    const outcome = await run(sendLoginCode({ email, sendLoginCodeRequest: {} }), {
      fallback: t('code.sendFailed'),
      success: ({ message }) => message,
      formError: setFormError,
      handled: (info) => isLoginExpired(info),
    });
    if (!outcome.ok && isLoginExpired(outcome.error)) {
      navigate('/login', { replace: true, state: { formError: outcome.message } });
      return;
    }
    cooldown.start(RESEND_COOLDOWN_SECONDS);
  };

  return (
    <AuthCard
      title={t('code.title')}
      titleId="code-title"
      lead={
        <p>
          <Trans t={t} i18nKey="code.lead" values={{ email }} components={{ email: <strong className="break-anywhere" /> }} />
        </p>
      }
      footer={
        <p>
          <Trans t={t} i18nKey="code.notYou" components={{ signin: <Link to="/login" /> }} />
        </p>
      }
    >
      <FormError message={formError} />
      <form className="form" noValidate onSubmit={onSubmit} aria-labelledby="code-title">
        <TextField
          label={t('code.label')}
          inputMode="numeric"
          autoComplete="one-time-code"
          autoCapitalize="none"
          spellCheck={false}
          error={fieldError('loginCode')}
          {...register('loginCode')}
        />
        {totpStep ? <TotpField registration={register('totpCode')} error={fieldError('totpCode')} /> : null}
        <SubmitButton busy={isLoading} busyLabel={t('code.busy')}>
          {t('code.submit')}
        </SubmitButton>
      </form>
      <div className="resend">
        <p className="resend__text">{t('code.notReceived')}</p>
        <button
          type="button"
          className="button button--secondary button--block"
          aria-disabled={cooldown.secondsLeft > 0 || isSending || undefined}
          aria-describedby="resend-status"
          onClick={() => void resend()}
        >
          {isSending ? t('code.sending') : t('code.resend')}
        </button>
        <p id="resend-status" className="resend__status">
          {cooldown.secondsLeft > 0 ? t('code.waitSeconds', { seconds: cooldown.secondsLeft }) : t('code.canResend')}
        </p>
      </div>
      {suspendedMessage ? <SuspendedDialog message={suspendedMessage} onClose={() => setSuspendedMessage(null)} /> : null}
    </AuthCard>
  );
}
