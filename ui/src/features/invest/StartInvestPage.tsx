import { useState, type FormEvent, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/errors';
import {
  useLazyGetInvestmentQuoteQuery,
  useListPlansQuery,
  useStartInvestmentMutation,
  type Investment,
  type InvestmentQuote,
  type Plan,
} from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { GATE_UNKNOWN_MESSAGE, gateLink, useInvestGate } from '../../components/investGate';
import { QueryState } from '../../components/QueryState';
import { RedirectCountdown } from '../../components/RedirectCountdown';
import { RetryButton } from '../../components/RetryButton';
import { Spinner } from '../../components/Spinner';
import { useToast } from '../../components/toast/useToast';
import { useRunMutation } from '../../components/useRunMutation';
import { useCurrentUser } from '../auth/session';
import { newIdempotencyKey } from '../../components/idempotencyKey';
import { aprPercent, days, termRatePercent } from '../../components/planWords';
import { RiskNotice } from '../../components/RiskNotice';
import { formatDate } from '../../components/format';

// After an investment is requested the page goes to the dashboard after this many seconds.
export const REDIRECT_SECONDS = 2;

export const SELECT_PLAN = 'Please select an investment plan.';
export const ACKNOWLEDGE_RISK = 'Please confirm that you have read the risk notice.';

// Step 1: a plan and an amount. The figures of step 2 are the server's (GET /api/invest/quote),
// worked out with the plan's current terms: the page formats them and does no money arithmetic.
function ChoosePlan({ plans, onQuoted }: { plans: Plan[]; onQuoted: (q: InvestmentQuote) => void }) {
  const toast = useToast();
  const [params] = useSearchParams();
  const preselected = plans.find((p) => p._id === params.get('plan'));
  const [planName, setPlanName] = useState(preselected?.name ?? '');
  const [amount, setAmount] = useState('');
  const [quote, { isFetching }] = useLazyGetInvestmentQuoteQuery();

  const review = async (event: FormEvent) => {
    event.preventDefault();
    if (isFetching) return;
    if (!planName) {
      toast.error(SELECT_PLAN);
      return;
    }
    try {
      onQuoted(await quote({ planName, amount: amount.trim() }).unwrap());
    } catch (raw) {
      toast.error(errorMessage(raw, 'The investment could not be worked out. Please try again.'));
    }
  };

  return (
    <form className="form" onSubmit={(e) => void review(e)} noValidate>
      <fieldset className="stack">
        <legend className="field__label">Plan</legend>
        {plans.map((p) => (
          <div key={p._id} className="choice card" data-testid="plan-choice">
            <input
              id={`plan-${p._id}`}
              type="radio"
              name="plan"
              value={p.name}
              checked={planName === p.name}
              onChange={() => setPlanName(p.name)}
              aria-describedby={`plan-${p._id}-terms`}
            />
            <label htmlFor={`plan-${p._id}`} className="choice__label">
              {p.name}
            </label>
            <p id={`plan-${p._id}-terms`} className="choice__detail">
              <Amount amount={p.min} /> to <Amount amount={p.max} /> · {days(p.termDays)} · {termRatePercent(p.termRate)} for the term ·{' '}
              {aprPercent(p.apr)} a year (APR)
            </p>
          </div>
        ))}
      </fieldset>
      <div className="field">
        <label className="field__label" htmlFor="invest-amount">
          Amount in US dollars
        </label>
        <input id="invest-amount" className="field__input" inputMode="decimal" autoComplete="off" value={amount} onChange={(e) => setAmount(e.target.value)} />
      </div>
      <button type="submit" className="button" aria-disabled={isFetching || undefined}>
        {isFetching ? 'Working it out…' : 'Review investment'}
      </button>
    </form>
  );
}

// Step 2: the figures, the risk notice to acknowledge, then the request. One Idempotency-Key per
// confirmation step, so a double click or a retry after a lost answer asks once.
// The request carries the plan version the figures came from: if the plan's terms changed since,
// the server refuses it with the new figures, which replace these and are to be reviewed again.
function Confirm({
  quote,
  notice,
  onBack,
  onStarted,
  onQuoteChanged,
}: {
  quote: InvestmentQuote;
  notice: string | null;
  onBack: () => void;
  onStarted: (i: Investment) => void;
  onQuoteChanged: (q: InvestmentQuote, message: string) => void;
}) {
  const toast = useToast();
  const run = useRunMutation();
  const [start, { isLoading }] = useStartInvestmentMutation();
  const [key] = useState(newIdempotencyKey);
  const [acknowledged, setAcknowledged] = useState(false);

  const confirm = async () => {
    if (isLoading) return;
    if (!acknowledged) {
      toast.error(ACKNOWLEDGE_RISK);
      return;
    }
    const request = { planName: quote.plan, amount: quote.amount, planVersion: quote.planVersion };
    const outcome = await run(start({ 'Idempotency-Key': key, startInvestmentRequest: request }), {
      fallback: 'Error starting the investment.',
      success: 'Investment requested! Staff will review it shortly.',
      handled: (e) => e.code === 'plan_changed' && e.investmentQuote !== undefined,
    });
    if (outcome.ok) onStarted(outcome.data);
    else if (outcome.error.code === 'plan_changed' && outcome.error.investmentQuote) onQuoteChanged(outcome.error.investmentQuote, outcome.message);
  };

  const rows: [string, ReactNode][] = [
    ['Plan', quote.plan],
    ['Amount', <Amount amount={quote.amount} />],
    ['Term', days(quote.termDays)],
    ['Rate for the term', termRatePercent(quote.termRate)],
    ['Annual rate (APR)', `${aprPercent(quote.apr)} a year`],
    ['Return', <Amount amount={quote.return} />],
    ['Paid at maturity', <strong data-testid="quote-payout"><Amount amount={quote.payout} /></strong>],
    ['Matures on', `${formatDate(quote.maturesAt)} if approved today`],
  ];
  return (
    <div className="stack" data-testid="invest-confirm">
      <h2 className="section-title">Check your investment</h2>
      {notice ? (
        <p className="panel panel--warning" role="alert" data-testid="invest-quote-changed">
          {notice}
        </p>
      ) : null}
      <dl className="facts">
        {rows.map(([term, value]) => (
          <div key={term} className="facts__row">
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      <p className="muted">
        The amount is held from your available balance (<Amount amount={quote.available} />) until staff approve the investment.
        The term starts on approval.
      </p>
      <RiskNotice />
      <label className="checkbox">
        <input type="checkbox" checked={acknowledged} onChange={(e) => setAcknowledged(e.target.checked)} />
        I have read the risk notice and understand I can lose money.
      </label>
      <div className="button-row">
        <button type="button" className="button" aria-disabled={isLoading || !acknowledged || undefined} onClick={() => void confirm()}>
          {isLoading ? 'Sending…' : 'Confirm investment'}
        </button>
        <button type="button" className="button button--secondary" onClick={onBack}>
          Change
        </button>
      </div>
    </div>
  );
}

function StartInvest() {
  const plans = useListPlansQuery();
  const [quote, setQuote] = useState<InvestmentQuote | null>(null);
  const [notice, setNotice] = useState<{ text: string; round: number } | null>(null);
  const [started, setStarted] = useState<Investment | null>(null);
  if (started) {
    return (
      <div className="panel" data-testid="invest-started">
        <h2 className="panel__title">Investment requested</h2>
        <p>
          Your investment of <Amount amount={started.amount} /> in the {started.plan} plan is waiting for approval. We will
          e-mail you. <Link to={`/investment/${started._id}`}>See the investment</Link>
        </p>
        <RedirectCountdown seconds={REDIRECT_SECONDS} />
      </div>
    );
  }
  if (quote) {
    return (
      <Confirm
        // New terms are a new confirmation step: the risk notice is acknowledged again, under a new key.
        key={notice?.round ?? 0}
        quote={quote}
        notice={notice?.text ?? null}
        onBack={() => {
          setQuote(null);
          setNotice(null);
        }}
        onStarted={setStarted}
        onQuoteChanged={(q, text) => {
          setQuote(q);
          setNotice((n) => ({ text, round: (n?.round ?? 0) + 1 }));
        }}
      />
    );
  }
  return (
    <QueryState
      query={plans}
      loading="Loading the plans…"
      failed="The plans could not be loaded"
      empty={{ when: (data) => data.plans.length === 0, message: 'No plans are open for new investments right now.' }}
    >
      {(data) => <ChoosePlan plans={data.plans} onQuoted={setQuote} />}
    </QueryState>
  );
}

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
      {gate.state === 'open' ? <StartInvest /> : null}
    </section>
  );
}
