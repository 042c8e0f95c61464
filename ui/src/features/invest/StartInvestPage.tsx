import { Link } from 'react-router';
import { GATE_UNKNOWN_MESSAGE, gateLink, useInvestGate } from '../../components/investGate';
import { RetryButton } from '../../components/RetryButton';
import { Spinner } from '../../components/Spinner';
import { useCurrentUser } from '../auth/session';

// The start of an investment. The money screens are still to come; the gate is already real, so
// a user who may not invest yet learns why here too.
export function StartInvestPage() {
  const gate = useInvestGate();
  const { data: user } = useCurrentUser();
  const link = user ? gateLink(user) : null;
  return (
    <section className="page container page--narrow" aria-labelledby="start-invest-title">
      <h1 id="start-invest-title">New Investment</h1>
      {gate.state === 'checking' ? <Spinner label="Checking whether you can invest…" /> : null}
      {gate.state === 'closed' ? (
        <div className="panel panel--warning" data-testid="invest-gate">
          <h2 className="panel__title">You cannot invest yet</h2>
          <p>{gate.message}</p>
          {link ? (
            <Link className="button" to={link.to}>
              {link.label}
            </Link>
          ) : !user?.isVerified ? (
            <Link to="/my-account">Go to your dashboard to resend the verification e-mail</Link>
          ) : null}
        </div>
      ) : null}
      {gate.state === 'unknown' ? (
        // The check failed: a calm note and a way to ask again, never an action that may be refused.
        <div className="panel" data-testid="invest-gate-unknown">
          <p>{GATE_UNKNOWN_MESSAGE} Please try again in a moment.</p>
          <RetryButton busy={gate.retrying} onRetry={gate.retry} />
        </div>
      ) : null}
      {gate.state === 'open' ? (
        <div className="panel">
          <h2 className="panel__title">Investing is open to you</h2>
          <p>Choosing a plan and an amount right here is coming soon. Meanwhile, have a look at our plans.</p>
          <Link to="/investment-plans">See the portfolio plans</Link>
        </div>
      ) : null}
    </section>
  );
}
