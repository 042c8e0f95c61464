import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { AuthCard } from '../../components/AuthCard';
import { Spinner } from '../../components/Spinner';
import { selectIsLoggedIn } from './authSlice';

export const REDIRECT_AFTER_MS = 3000;

type Outcome = { state: 'verifying' } | { state: 'verified'; message: string } | { state: 'failed'; message: string };

export function VerifyEmailPage() {
  const { verificationToken = '' } = useParams();
  const dispatch = useAppDispatch();
  const navigate = useNavigate();
  const isLoggedIn = useAppSelector(selectIsLoggedIn);
  const [outcome, setOutcome] = useState<Outcome>({ state: 'verifying' });
  // A token works once; effects that run twice (React's development checks) must not spend it
  // twice and then report the second, failed attempt.
  const started = useRef<string | null>(null);

  useEffect(() => {
    if (started.current === verificationToken) return;
    started.current = verificationToken;
    dispatch(api.endpoints.verifyUser.initiate({ token: verificationToken }))
      .unwrap()
      .then(({ message }) => setOutcome({ state: 'verified', message }))
      .catch((error: unknown) =>
        setOutcome({ state: 'failed', message: errorMessage(error, 'This verification link is invalid or has expired.') }),
      );
  }, [dispatch, verificationToken]);

  // After verification the user continues to the identity check after 3 s.
  useEffect(() => {
    if (outcome.state !== 'verified') return;
    const timer = setTimeout(() => navigate('/upload-kyc', { replace: true }), REDIRECT_AFTER_MS);
    return () => clearTimeout(timer);
  }, [outcome.state, navigate]);

  return (
    <AuthCard title="Verify Your E-mail" titleId="verify-title">
      {outcome.state === 'verifying' ? <Spinner label="Verifying your e-mail address…" /> : null}
      {outcome.state === 'verified' ? (
        <div className="panel panel--success" role="status">
          <h2 className="panel__title">E-mail verified</h2>
          <p>{outcome.message}</p>
          <p>Next comes the identity check. Taking you there in 3 seconds…</p>
          <Link className="button" to="/upload-kyc" replace>
            Continue now
          </Link>
        </div>
      ) : null}
      {outcome.state === 'failed' ? (
        <div className="panel panel--error" role="alert">
          <h2 className="panel__title">We could not verify your e-mail</h2>
          <p>{outcome.message}</p>
          <p>
            {isLoggedIn
              ? 'You can ask for a new verification e-mail from your dashboard.'
              : 'Sign in and ask for a new verification e-mail from your dashboard.'}
          </p>
          <Link className="button" to={isLoggedIn ? '/my-account' : '/login'}>
            {isLoggedIn ? 'Go to my dashboard' : 'Sign in'}
          </Link>
        </div>
      ) : null}
    </AuthCard>
  );
}
