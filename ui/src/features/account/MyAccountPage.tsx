import { Link } from 'react-router';
import { useGetMyKycQuery, useSendVerificationEmailMutation, type User } from '../../api/enhanced';
import { menuLinks, type MenuLink } from '../../app/routes';
import { Amount } from '../../components/Amount';
import { DecisionReasons } from '../../components/DecisionReasons';
import { GATE_UNKNOWN_MESSAGE, gateLink, useInvestGate } from '../../components/investGate';
import { QueryState } from '../../components/QueryState';
import { RetryButton } from '../../components/RetryButton';
import { useRunMutation } from '../../components/useRunMutation';
import { useCurrentUser } from '../auth/session';
import { useSettleDueInvestments } from '../../components/settleDue';
import { ShareExperienceCard } from '../community/ShareExperienceCard';
import { DashboardPanels } from './DashboardPanels';

const INVEST_PATH = '/start-invest';

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
      <div className="banner banner--info" data-testid="kyc-notice">
        <p>
          <strong>Identity check: pending review.</strong> We are checking your documents and will e-mail you when we
          are done.
        </p>
      </div>
    );
  }
  if (status === 'Rejected') return <KycRejectedNotice />;
  return (
    <div className="banner banner--info" data-testid="kyc-notice">
      <p>
        <strong>Identity check: KYC Not Submitted.</strong> Before you can invest we need to confirm who you are.{' '}
        <Link to="/upload-kyc">Upload your documents</Link>
      </p>
    </div>
  );
}

// A rejection with the reviewer's reasons, so the user knows what to fix before re-uploading.
function KycRejectedNotice() {
  const kyc = useGetMyKycQuery({});
  const decision = kyc.data?.lastDecision;
  return (
    <div className="banner banner--error" data-testid="kyc-notice">
      <p>
        <strong>Identity check: not accepted.</strong> Your documents could not be accepted.
      </p>
      {decision && decision.status === 'Rejected' ? <DecisionReasons decision={decision} /> : null}
      <p>
        <Link to="/upload-kyc">Upload new documents</Link>
      </p>
    </div>
  );
}

// "New Investment" opens only when the server says the user may invest; otherwise the tile says
// why, with the way forward when there is one.
function InvestTile({ to, label, user }: MenuLink & { user: User }) {
  const gate = useInvestGate();
  if (gate.state === 'unknown') {
    // The check failed: nothing is known, so the tile offers only to ask again, calmly.
    return (
      <div className="action-tile action-tile--closed" data-testid="invest-gate-unknown">
        <span>{label}</span>
        <span className="action-tile__note">{GATE_UNKNOWN_MESSAGE}</span>
        <RetryButton busy={gate.retrying} onRetry={gate.retry} className="button button--secondary button--small" />
      </div>
    );
  }
  if (gate.state !== 'closed') {
    return (
      <Link className="action-tile" to={to}>
        {label}
      </Link>
    );
  }
  const link = gateLink(user);
  return (
    <div className="action-tile action-tile--closed" data-testid="invest-gate">
      <span>
        {label} <span className="badge">Locked</span>
      </span>
      <span className="action-tile__note">{gate.message}</span>
      {link ? (
        <Link className="action-tile__link" to={link.to}>
          {link.label}
        </Link>
      ) : null}
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

function QuickLinks({ links, user }: { links: MenuLink[]; user: User }) {
  return (
    <ul className="actions-grid">
      {links.map(({ to, label }) => (
        <li key={to}>
          {to === INVEST_PATH ? (
            <InvestTile to={to} label={label} user={user} />
          ) : (
            <Link className="action-tile" to={to}>
              {label}
            </Link>
          )}
        </li>
      ))}
    </ul>
  );
}

function Dashboard({ user }: { user: User }) {
  useSettleDueInvestments();
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
      <DashboardPanels />
      <ShareExperienceCard />

      <h2 className="section-title">Quick actions</h2>
      <QuickLinks links={menuLinks('account', viewer)} user={user} />

      {staffLinks.length > 0 ? (
        <>
          <h2 className="section-title">Staff</h2>
          <QuickLinks links={staffLinks} user={user} />
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
