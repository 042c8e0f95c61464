import { useChangePasswordMutation } from '../../api/enhanced';
import { SubmitButton } from '../../components/form/SubmitButton';
import { PasswordField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useRunMutation } from '../../components/useRunMutation';
import { PasswordChecklist } from '../auth/PasswordChecklist';
import { useLogout } from '../auth/useLogout';
import { changePasswordFields, changePasswordSchema } from '../auth/validation';

export function ChangePasswordForm() {
  const run = useRunMutation();
  const logout = useLogout();
  const [changePassword, { isLoading }] = useChangePasswordMutation();
  const form = useSpecForm(changePasswordSchema, changePasswordFields, { oldPassword: '', password: '', confirmPassword: '' });
  const { register, handleSubmit, watch, setError, fieldError } = form;

  const onSubmit = handleSubmit(async (values) => {
    const outcome = await run(changePassword({ changePasswordRequest: values }), {
      fallback: 'Your password could not be changed. Please try again.',
      success: ({ message }) => message,
      form: { setError, fields: changePasswordFields },
    });
    // A password change signs the user out; they sign in again with the new one.
    if (outcome.ok) await logout({ quiet: true });
  });

  return (
    <section className="card" aria-labelledby="change-password-title">
      <h3 id="change-password-title">Change password</h3>
      <p className="muted">After the change you will be signed out everywhere and sign in again with the new password.</p>
      <form className="form" noValidate onSubmit={onSubmit} aria-labelledby="change-password-title">
        <PasswordField label="Current password" autoComplete="current-password" error={fieldError('oldPassword')} {...register('oldPassword')} />
        <PasswordField
          label="New password"
          autoComplete="new-password"
          error={fieldError('password')}
          details={<PasswordChecklist password={watch('password')} />}
          {...register('password')}
        />
        <PasswordField label="Confirm new password" autoComplete="new-password" error={fieldError('confirmPassword')} {...register('confirmPassword')} />
        <SubmitButton busy={isLoading} busyLabel="Changing…" className="button">
          Change password
        </SubmitButton>
      </form>
    </section>
  );
}
