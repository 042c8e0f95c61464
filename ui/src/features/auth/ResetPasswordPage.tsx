import { Link, useNavigate, useParams } from 'react-router';
import { useResetPasswordMutation } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { AuthCard } from '../../components/AuthCard';
import { SubmitButton } from '../../components/form/SubmitButton';
import { PasswordField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useToast } from '../../components/toast/useToast';
import { usePageTitle } from '../../components/usePageTitle';
import { PasswordChecklist } from './PasswordChecklist';
import { newPasswordFields, newPasswordSchema } from './validation';

export function ResetPasswordPage() {
  usePageTitle('Reset Password');
  const { resetToken = '' } = useParams();
  const navigate = useNavigate();
  const toast = useToast();
  const [resetPassword, { isLoading }] = useResetPasswordMutation();
  const form = useSpecForm(newPasswordSchema, newPasswordFields, { password: '', confirmPassword: '' });
  const { register, handleSubmit, watch, fieldError } = form;

  const onSubmit = handleSubmit(async ({ password, confirmPassword }) => {
    try {
      const { message } = await resetPassword({ resetToken, resetPasswordRequest: { password, confirmPassword } }).unwrap();
      if (message.includes('Reset Successful')) {
        toast.success(message);
        navigate('/login', { replace: true });
      } else {
        toast.info(message);
      }
    } catch (error) {
      toast.error(errorMessage(error, 'The password could not be reset. Please try again.'));
    }
  });

  return (
    <AuthCard
      title="Reset Password"
      titleId="reset-title"
      lead={<p>Choose a new password. Signing in with it ends every other session of your account.</p>}
      footer={
        <p>
          Link expired? <Link to="/forgot">Ask for a new one</Link>
        </p>
      }
    >
      <form className="form" noValidate onSubmit={onSubmit} aria-labelledby="reset-title">
        <PasswordField
          label="New password"
          autoComplete="new-password"
          error={fieldError('password')}
          details={<PasswordChecklist password={watch('password')} />}
          {...register('password')}
        />
        <PasswordField
          label="Confirm new password"
          autoComplete="new-password"
          error={fieldError('confirmPassword')}
          {...register('confirmPassword')}
        />
        <SubmitButton busy={isLoading} busyLabel="Saving…">
          Reset password
        </SubmitButton>
      </form>
    </AuthCard>
  );
}
