import { Link, useNavigate, useParams } from 'react-router';
import { useResetPasswordMutation } from '../../api/enhanced';
import { AuthCard } from '../../components/AuthCard';
import { SubmitButton } from '../../components/form/SubmitButton';
import { PasswordField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useToast } from '../../components/toast/useToast';
import { useRunMutation } from '../../components/useRunMutation';
import { PasswordChecklist } from './PasswordChecklist';
import { newPasswordFields, newPasswordSchema } from './validation';

export function ResetPasswordPage() {
  const { resetToken = '' } = useParams();
  const navigate = useNavigate();
  const toast = useToast();
  const run = useRunMutation();
  const [resetPassword, { isLoading }] = useResetPasswordMutation();
  const form = useSpecForm(newPasswordSchema, newPasswordFields, { password: '', confirmPassword: '' });
  const { register, handleSubmit, watch, setError, fieldError } = form;

  const onSubmit = handleSubmit(async ({ password, confirmPassword }) => {
    const outcome = await run(resetPassword({ resetToken, resetPasswordRequest: { password, confirmPassword } }), {
      fallback: 'The password could not be reset. Please try again.',
      form: { setError, fields: newPasswordFields },
    });
    if (!outcome.ok) return;
    const { message } = outcome.data;
    if (message.includes('Reset Successful')) {
      toast.success(message);
      navigate('/login', { replace: true });
    } else {
      toast.info(message);
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
