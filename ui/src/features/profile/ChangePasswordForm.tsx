import { useChangePasswordMutation } from '../../api/enhanced';
import { apiErrorInfo, errorMessage } from '../../api/errors';
import { SubmitButton } from '../../components/form/SubmitButton';
import { PasswordField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useToast } from '../../components/toast/useToast';
import { PasswordChecklist } from '../auth/PasswordChecklist';
import { useLogout } from '../auth/useLogout';
import { changePasswordFields, changePasswordSchema } from '../auth/validation';

export function ChangePasswordForm() {
  const toast = useToast();
  const logout = useLogout();
  const [changePassword, { isLoading }] = useChangePasswordMutation();
  const form = useSpecForm(changePasswordSchema, changePasswordFields, { oldPassword: '', password: '', confirmPassword: '' });
  const { register, handleSubmit, watch, setError, fieldError } = form;

  const onSubmit = handleSubmit(async (values) => {
    try {
      const { message } = await changePassword({ changePasswordRequest: values }).unwrap();
      toast.success(message);
      // A password change signs the user out; they sign in again with the new one.
      await logout({ quiet: true });
    } catch (error) {
      const message = errorMessage(error, 'Your password could not be changed. Please try again.');
      toast.error(message);
      const { status, field } = apiErrorInfo(error);
      if (field === 'oldPassword' || (status === 401 && !field)) setError('oldPassword', { message }, { shouldFocus: true });
      else if (field === 'password' || field === 'confirmPassword') setError(field, { message }, { shouldFocus: true });
    }
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
