import type { ClipboardEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useRegisterMutation } from '../../api/enhanced';
import { AuthCard } from '../../components/AuthCard';
import { SubmitButton } from '../../components/form/SubmitButton';
import { PasswordField, TextField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useToast } from '../../components/toast/useToast';
import { useRunMutation } from '../../components/useRunMutation';
import { CountrySelect, useDialCode } from './CountrySelect';
import { PasswordChecklist } from './PasswordChecklist';
import { GoogleButton } from './GoogleSignIn';
import { messages, normalisePhone, registerFields, registerSchema } from './validation';

export function RegisterPage() {
  const toast = useToast();
  const run = useRunMutation();
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
  });
  const { register, handleSubmit, watch, setError, fieldError } = form;
  const dialCode = useDialCode(watch('country'));

  // Typing the password twice is the point of the confirmation field.
  const blockPaste = (event: ClipboardEvent<HTMLInputElement>) => {
    event.preventDefault();
    toast.error(messages.paste);
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
        },
      }),
      { fallback: 'Registration failed. Please try again.', success: 'Registration Successful', form: { setError, fields: registerFields } },
    );
  });

  return (
    <AuthCard
      title="Create an Account"
      titleId="register-title"
      lead={<p>It takes a minute. You will verify your e-mail and your identity before you can invest.</p>}
      footer={
        <p>
          Already have an account? <Link to="/login">Sign in</Link>
        </p>
      }
    >
      <form className="form" noValidate onSubmit={onSubmit} aria-labelledby="register-title">
        <TextField label="Full name" autoComplete="name" error={fieldError('name')} {...register('name')} />
        <TextField
          label="Email"
          type="email"
          autoComplete="email"
          autoCapitalize="none"
          spellCheck={false}
          error={fieldError('email')}
          {...register('email')}
        />
        <CountrySelect registration={register('country')} error={fieldError('country')} />
        <TextField
          label="Phone number"
          type="tel"
          autoComplete="tel"
          hint={dialCode ? `Start with your country code, ${dialCode}.` : 'Start with your country code, e.g. +44.'}
          error={fieldError('phone')}
          {...register('phone')}
        />
        <PasswordField
          label="Password"
          autoComplete="new-password"
          error={fieldError('password')}
          details={<PasswordChecklist password={watch('password')} />}
          {...register('password')}
        />
        <PasswordField
          label="Confirm password"
          autoComplete="new-password"
          hint="Type it again; pasting is turned off here."
          error={fieldError('confirmPassword')}
          onPaste={blockPaste}
          {...register('confirmPassword')}
        />
        <TextField
          label="Referral code"
          optional
          autoCapitalize="characters"
          spellCheck={false}
          error={fieldError('referralCode')}
          {...register('referralCode')}
        />
        <SubmitButton busy={isLoading} busyLabel="Creating your account…">
          Create account
        </SubmitButton>
      </form>
      <GoogleButton />
    </AuthCard>
  );
}
