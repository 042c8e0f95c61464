import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { AuthCard } from '../../components/AuthCard';
import { Spinner } from '../../components/Spinner';
import { useTranslation } from '../../i18n';
import { selectIsLoggedIn } from './authSlice';

export const REDIRECT_AFTER_MS = 3000;

type Outcome = { state: 'verifying' } | { state: 'verified'; message: string } | { state: 'failed'; message: string };

export function VerifyEmailPage() {
  const { t } = useTranslation('auth');
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
        setOutcome({ state: 'failed', message: errorMessage(error, t('verify.invalid')) }),
      );
  }, [dispatch, verificationToken, t]);

  // After verification the user continues to the identity check after 3 s.
  useEffect(() => {
    if (outcome.state !== 'verified') return;
    const timer = setTimeout(() => navigate('/upload-kyc', { replace: true }), REDIRECT_AFTER_MS);
    return () => clearTimeout(timer);
  }, [outcome.state, navigate]);

  return (
    <AuthCard title={t('verify.title')} titleId="verify-title">
      {outcome.state === 'verifying' ? <Spinner label={t('verify.verifying')} /> : null}
      {outcome.state === 'verified' ? (
        <div className="panel panel--success" role="status">
          <h2 className="panel__title">{t('verify.verified')}</h2>
          <p>{outcome.message}</p>
          <p>{t('verify.next')}</p>
          <Link className="button" to="/upload-kyc" replace>
            {t('verify.continue')}
          </Link>
        </div>
      ) : null}
      {outcome.state === 'failed' ? (
        <div className="panel panel--error" role="alert">
          <h2 className="panel__title">{t('verify.failed')}</h2>
          <p>{outcome.message}</p>
          <p>
            {isLoggedIn ? t('verify.askSignedIn') : t('verify.askSignedOut')}
          </p>
          <Link className="button" to={isLoggedIn ? '/my-account' : '/login'}>
            {isLoggedIn ? t('verify.dashboard') : t('verify.signIn')}
          </Link>
        </div>
      ) : null}
    </AuthCard>
  );
}
