import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useSecureAccountMutation } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { AuthCard } from '../../components/AuthCard';

// The "Wasn't you?" link of the new-browser and password-changed e-mails. Opening it changes
// nothing: mail scanners open links too, and locking everyone out of an account is the owner's
// decision, so the page explains what will happen and waits for the button.
export function SecureAccountPage() {
  const { token = '' } = useParams();
  const [secure, { isLoading, isSuccess, data, error }] = useSecureAccountMutation();
  const [failed, setFailed] = useState(false);

  const submit = async () => {
    if (isLoading) return;
    setFailed(false);
    try {
      await secure({ token }).unwrap();
    } catch {
      setFailed(true);
    }
  };

  if (isSuccess) {
    return (
      <AuthCard title="Secure Your Account" titleId="secure-title">
        <div className="panel panel--success" role="status">
          <h2 className="panel__title">Your account is secured</h2>
          <p>{data?.message}</p>
          <p>Open the link from your inbox to choose a new password, then sign in again.</p>
          <Link className="button" to="/login">
            Go to sign in
          </Link>
        </div>
      </AuthCard>
    );
  }

  return (
    <AuthCard
      title="Secure Your Account"
      titleId="secure-title"
      lead={<p>If someone else signed in to your account or changed its password, lock them out now.</p>}
    >
      <div className="stack">
        <ul>
          <li>Every session on every browser is signed out, including this one.</li>
          <li>No browser stays trusted: the next sign-in asks for a code from your e-mail.</li>
          <li>We e-mail you a link to choose a new password.</li>
        </ul>
        <p>Your money is not touched.</p>
        {failed ? (
          <div className="panel panel--error" role="alert">
            <h2 className="panel__title">We could not secure your account with this link</h2>
            <p>{errorMessage(error, 'Something went wrong. Please try again.')}</p>
            <p>
              If the link has expired, you can still <Link to="/forgot">reset your password</Link>, which signs everyone
              out too.
            </p>
          </div>
        ) : null}
        <button type="button" className="button button--danger" onClick={() => void submit()} disabled={isLoading} aria-busy={isLoading || undefined}>
          {isLoading ? 'Securing your account…' : 'Sign everyone out and secure my account'}
        </button>
      </div>
    </AuthCard>
  );
}
