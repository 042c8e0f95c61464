import { Link } from 'react-router';
import { useGetUserQuery, useSendVerificationEmailMutation, type User } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { useAppSelector } from '../../app/hooks';
import { Amount } from '../../components/Amount';
import { LoadError } from '../../components/LoadError';
import { Spinner } from '../../components/Spinner';
import { useToast } from '../../components/toast/useToast';
import { usePageTitle } from '../../components/usePageTitle';
import { isStaff, selectCurrentUser } from '../auth/authSlice';

const quickActions = [
  { to: '/deposit-payment', label: 'Fund Wallet' },
  { to: '/start-invest', label: 'New Investment' },
  { to: '/invest-status', label: 'My Portfolio' },
  { to: '/investment-plans', label: 'Available Plans' },
  { to: '/withdraw-wallet', label: 'Withdraw Profit' },
  { to: '/referrals', label: 'Referral Program' },
  { to: '/transaction-History', label: 'Transactions' },
];

const staffActions = [
  { to: '/admin-pending-wallet', label: 'Pending Withdrawals' },
  { to: '/admin-pending-deposit', label: 'Pending Deposits' },
  { to: '/admin-pending-investment', label: 'Investment Queue' },
  { to: '/pending-kyc', label: 'KYC Approval' },
];

function VerifyEmailBanner() {
  const toast = useToast();
  const [send, { isLoading }] = useSendVerificationEmailMutation();
  const resend = async () => {
    if (isLoading) return;
    try {
      const { message } = await send().unwrap();
      toast.success(message);
    } catch (error) {
      toast.error(errorMessage(error, 'The verification e-mail could not be sent. Please try again.'));
    }
  };
  return (
    <div className="banner banner--warning">
      <p>
        <strong>Please verify your e-mail address.</strong> We sent you a link when you signed up.{' '}
        <button type="button" className="link-button" aria-disabled={isLoading || undefined} onClick={() => void resend()}>
          {isLoading ? 'Sending…' : 'Resend verification e-mail'}
        </button>
      </p>
    </div>
  );
}

function KycNotice({ status }: { status: User['kycStatus'] }) {
  if (status === 'Approved') return null;
  if (status === 'Pending') {
    return (
      <div className="banner banner--info">
        <p>
          <strong>Identity check: pending review.</strong> We are checking your documents and will e-mail you when we
          are done.
        </p>
      </div>
    );
  }
  if (status === 'Rejected') {
    return (
      <div className="banner banner--error">
        <p>
          <strong>Identity check: not accepted.</strong> Your documents could not be accepted.{' '}
          <Link to="/upload-kyc">Upload new documents</Link>
        </p>
      </div>
    );
  }
  return (
    <div className="banner banner--info">
      <p>
        <strong>Identity check: KYC Not Submitted.</strong> Before you can invest we need to confirm who you are.{' '}
        <Link to="/upload-kyc">Upload your documents</Link>
      </p>
    </div>
  );
}

function Figure({ label, amount }: { label: string; amount: string }) {
  return (
    <div className="figure">
      <dt className="figure__label">{label}</dt>
      <dd className="figure__value">
        <Amount amount={amount} />
      </dd>
    </div>
  );
}

export function MyAccountPage() {
  usePageTitle('My Account');
  const user = useAppSelector(selectCurrentUser);
  const { isError, error, refetch } = useGetUserQuery({});

  if (!user) {
    return (
      <section className="page container" aria-labelledby="account-title">
        <h1 id="account-title">My Account</h1>
        {isError ? (
          <LoadError title="Your account could not be loaded" message={errorMessage(error, 'Failed to load user data')} onRetry={() => void refetch()} />
        ) : (
          <Spinner label="Loading your account…" />
        )}
      </section>
    );
  }

  const firstName = user.name.trim().split(/\s+/)[0] || user.name;
  return (
    <section className="page container" aria-labelledby="account-title">
      <p className="eyebrow">Dashboard</p>
      <h1 id="account-title">Welcome, {firstName}</h1>
      <div className="stack">
        {!user.isVerified ? <VerifyEmailBanner /> : null}
        <KycNotice status={user.kycStatus} />
      </div>

      <h2 className="section-title">Your money</h2>
      <dl className="figures">
        <Figure label="Available balance" amount={user.balance} />
        <Figure label="Invested" amount={user.investmentBalance} />
        <Figure label="Total profit" amount={user.totalMaturityAmount} />
        {user.hasFees ? <Figure label="Fees paid" amount={user.fees} /> : null}
      </dl>

      <h2 className="section-title">Quick actions</h2>
      <ul className="actions-grid">
        {quickActions.map(({ to, label }) => (
          <li key={to}>
            <Link className="action-tile" to={to}>
              {label}
            </Link>
          </li>
        ))}
      </ul>

      {isStaff(user.role) ? (
        <>
          <h2 className="section-title">Staff</h2>
          <ul className="actions-grid">
            {staffActions.map(({ to, label }) => (
              <li key={to}>
                <Link className="action-tile" to={to}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
