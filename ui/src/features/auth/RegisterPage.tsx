import { Link, useSearchParams } from 'react-router';
import { useController } from 'react-hook-form';
import { useRegisterMutation, type Language } from '../../api/enhanced';
import { AuthCard } from '../../components/AuthCard';
import { SubmitButton } from '../../components/form/SubmitButton';
import { PasswordField, EmailField, TextField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { Trans, useLocale, useTranslation } from '../../i18n';
import { CountrySelect, useDialCode } from './CountrySelect';
import { GoogleButton } from './GoogleSignIn';
import { PasswordChecklist } from './PasswordChecklist';
import { TermsConsent } from './TermsConsent';
import { messages, normalisePhone, registerFields, registerSchema, useFormMessages } from './validation';

// The language the reader sees the site in, as the server records it (their e-mails follow it).
export function useSiteLanguage(): Language {
  return useLocale() === 'de' ? 'de' : 'en';
}

export function RegisterPage() {
  const { t } = useTranslation('auth');
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const say = useFormMessages();
  const language = useSiteLanguage();
  const [searchParams] = useSearchParams();
  const [registerUser, { isLoading }] = useRegisterMutation();
  const form = useSpecForm(registerSchema, registerFields, {
    name: '',
    email: '',
    phone: '',
    country: '',
    password: '',
    confirmPassword: '',
    referralCode: searchParams.get('ref')?.slice(0, 32) ?? '',
    acceptTerms: '',
  });
  const { register, handleSubmit, watch, setError, control } = form;
  const fieldError = (name: (typeof registerFields)[number]) => say.field(form.fieldError(name));
  const dialCode = useDialCode(watch('country'));
  const {
    field: { ref: consentInput, name: consentName, onBlur: consentBlur, onChange: consentChange, value: consentValue },
  } = useController({ control, name: 'acceptTerms' });
  const accepted = consentValue === 'yes';

  // "Continue with Google" may create an account too, so it needs the same consent.
  const googleWithoutConsent = () => {
    setError('acceptTerms', { type: 'custom', message: messages.terms }, { shouldFocus: true });
  };

  const onSubmit = handleSubmit(async (values) => {
    // On success RequireGuest continues to the identity check once the session exists.
    await run(
      registerUser({
        registerRequest: {
          name: values.name.trim(),
          email: values.email.trim(),
          phone: normalisePhone(values.phone),
          country: values.country,
          password: values.password,
          confirmPassword: values.confirmPassword,
          referralCode: values.referralCode.trim() || undefined,
          acceptTerms: values.acceptTerms === 'yes',
          language,
        },
      }),
      { fallback: t('register.failed'), success: t('register.success'), form: { setError, fields: registerFields }, formError: setFormError },
    );
  });

  return (
    <AuthCard
      title={t('register.title')}
      titleId="register-title"
      lead={<p>{t('register.lead')}</p>}
      footer={
        <p>
          <Trans t={t} i18nKey="register.haveAccount" components={{ signin: <Link to="/login" /> }} />
        </p>
      }
    >
      {searchParams.get('google') === 'terms' ? (
        <p className="panel panel--warning" role="status">
          {t('consent.googleNeedsConsent')}
        </p>
      ) : null}
      <FormError message={formError} />
      <form className="form" noValidate onSubmit={onSubmit} aria-labelledby="register-title">
        <TextField label={t('register.name')} autoComplete="name" error={fieldError('name')} {...register('name')} />
        <EmailField
          label={t('register.email')}
          error={fieldError('email')}
          {...register('email')}
        />
        <CountrySelect registration={register('country')} error={fieldError('country')} />
        <TextField
          label={t('register.phone')}
          type="tel"
          autoComplete="tel"
          hint={dialCode ? t('register.phoneHintFor', { code: dialCode }) : t('register.phoneHint')}
          error={fieldError('phone')}
          {...register('phone')}
        />
        <PasswordField
          label={t('register.password')}
          autoComplete="new-password"
          error={fieldError('password')}
          details={<PasswordChecklist password={watch('password')} />}
          {...register('password')}
        />
        <PasswordField
          label={t('register.confirmPassword')}
          autoComplete="new-password"
          error={fieldError('confirmPassword')}
          {...register('confirmPassword')}
        />
        <TextField
          label={t('register.referralCode')}
          optional
          autoCapitalize="characters"
          spellCheck={false}
          error={fieldError('referralCode')}
          {...register('referralCode')}
        />
        <TermsConsent
          ref={consentInput}
          name={consentName}
          onBlur={consentBlur}
          checked={accepted}
          onChange={(checked) => consentChange(checked ? 'yes' : '')}
          error={fieldError('acceptTerms')}
        />
        <SubmitButton busy={isLoading} busyLabel={t('register.busy')}>
          {t('register.submit')}
        </SubmitButton>
      </form>
      <GoogleButton consent={{ accepted, language, onMissing: googleWithoutConsent }} />
    </AuthCard>
  );
}
