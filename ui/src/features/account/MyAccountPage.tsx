import { Link } from 'react-router';
import { useSendVerificationEmailMutation, type User } from '../../api/enhanced';
import { menuLinks, type MenuLink } from '../../app/routes';
import { Amount } from '../../components/Amount';
import { QueryState } from '../../components/QueryState';
import { useRunMutation } from '../../components/useRunMutation';
import { useCurrentUser } from '../auth/session';

function VerifyEmailBanner() {
  const run = useRunMutation();
  const [send, { isLoading }] = useSendVerificationEmailMutation();
  const resend = async () => {
    if (isLoading) return;
    await run(send(), {
      fallback: 'The verification e-mail could not be sent. Please try again.',
      success: ({ message }) => message,
    });
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

function QuickLinks({ links }: { links: MenuLink[] }) {
  return (
    <ul className="actions-grid">
      {links.map(({ to, label }) => (
        <li key={to}>
          <Link className="action-tile" to={to}>
            {label}
          </Link>
        </li>
      ))}
    </ul>
  );
}

function Dashboard({ user }: { user: User }) {
  const viewer = { signedIn: true, role: user.role };
  const staffLinks = menuLinks('staff', viewer);
  const firstName = user.name.trim().split(/\s+/)[0] || user.name;
  return (
    <>
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
      <QuickLinks links={menuLinks('account', viewer)} />

      {staffLinks.length > 0 ? (
        <>
          <h2 className="section-title">Staff</h2>
          <QuickLinks links={staffLinks} />
        </>
      ) : null}
    </>
  );
}

export function MyAccountPage() {
  const me = useCurrentUser();
  return (
    <section className="page container" aria-labelledby="account-title">
      <QueryState
        query={me}
        loading="Loading your account…"
        failed="Your account could not be loaded"
        heading={<h1 id="account-title">My Account</h1>}
      >
        {(user) => <Dashboard user={user} />}
      </QueryState>
    </section>
  );
}
