import { useState } from 'react';
import { Link } from 'react-router';
import { useForgotPasswordMutation } from '../../api/enhanced';
import { AuthCard } from '../../components/AuthCard';
import { SubmitButton } from '../../components/form/SubmitButton';
import { TextField } from '../../components/form/TextField';
import { useSpecForm } from '../../components/form/useSpecForm';
import { useRunMutation } from '../../components/useRunMutation';
import { forgotSchema } from './validation';

export function ForgotPasswordPage() {
  const run = useRunMutation();
  const [forgotPassword, { isLoading }] = useForgotPasswordMutation();
  const form = useSpecForm(forgotSchema, ['email'], { email: '' });
  const { register, handleSubmit, fieldError } = form;
  // The server answers the same whether or not the account exists (no enumeration), so the page
  // shows that answer as it is.
  const [sent, setSent] = useState<{ email: string; message: string } | null>(null);

  const onSubmit = handleSubmit(async ({ email }) => {
    const outcome = await run(forgotPassword({ forgotPasswordRequest: { email: email.trim() } }), {
      fallback: 'The reset e-mail could not be sent. Please try again.',
    });
    if (outcome.ok) setSent({ email: email.trim(), message: outcome.data.message });
  });

  return (
    <AuthCard
      title="Forgot Password"
      titleId="forgot-title"
      lead={!sent ? <p>Enter the e-mail address of your account and we will send you a link to set a new password.</p> : null}
      footer={
        <p>
          Remembered it? <Link to="/login">Back to sign in</Link>
        </p>
      }
    >
      {sent ? (
        <div className="panel panel--success" role="status">
          <h2 className="panel__title">Check your e-mail</h2>
          <p>{sent.message}</p>
          <p>The link works once and expires after a while. If nothing arrives, check your spam folder.</p>
          <button type="button" className="button button--secondary" onClick={() => setSent(null)}>
            Use another address
          </button>
        </div>
      ) : (
        <form className="form" noValidate onSubmit={onSubmit} aria-labelledby="forgot-title">
          <TextField
            label="Email"
            type="email"
            autoComplete="email"
            autoCapitalize="none"
            spellCheck={false}
            error={fieldError('email')}
            {...register('email')}
          />
          <SubmitButton busy={isLoading} busyLabel="Sending…">
            Send reset link
          </SubmitButton>
        </form>
      )}
    </AuthCard>
  );
}
