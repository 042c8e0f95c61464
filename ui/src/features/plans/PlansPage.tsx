import { Link } from 'react-router';
import { useListPlansQuery, type Plan } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { QueryState } from '../../components/QueryState';
import { aprPercent, days, termRatePercent } from '../../components/planWords';
import { RiskNotice } from '../../components/RiskNotice';

// The plan catalogue for everyone, signed in or not. Every figure is the server's: the terms,
// the annualised rate and the worked example come from GET /api/invest/plans, computed by the
// same rules an investment follows (docs/plans.md). The page only formats them.

function PlanCard({ plan }: { plan: Plan }) {
  const titleId = `plan-${plan._id}-name`;
  const { example } = plan;
  return (
    <li className="card plan-card" data-testid="plan-card" aria-labelledby={titleId}>
      <h2 id={titleId} className="plan-card__name">
        {plan.name}
      </h2>
      <dl className="plan-card__terms">
        <div>
          <dt>Amount</dt>
          <dd>
            <Amount amount={plan.min} /> to <Amount amount={plan.max} />
          </dd>
        </div>
        <div>
          <dt>Term</dt>
          <dd>{days(plan.termDays)}</dd>
        </div>
        <div>
          <dt>Rate for the term</dt>
          <dd data-testid="plan-term-rate">{termRatePercent(plan.termRate)}</dd>
        </div>
        <div>
          <dt>Annual rate (APR)</dt>
          <dd data-testid="plan-apr">{aprPercent(plan.apr)} a year</dd>
        </div>
      </dl>
      <p className="plan-card__example" data-testid="plan-example">
        Invest <Amount amount={example.amount} /> for {days(example.maturityDays)} <span aria-hidden="true">→ </span>
        <span className="visually-hidden">and </span>
        receive <Amount amount={example.payout} />
        <span className="plan-card__return">
          {' '}
          (<Amount amount={example.return} /> return)
        </span>
      </p>
      <Link
        className="button plan-card__cta"
        to={`/start-invest?plan=${encodeURIComponent(plan._id)}`}
        aria-label={`Start investing in ${plan.name}`}
      >
        Start investing
      </Link>
    </li>
  );
}

export function PlansPage() {
  const plans = useListPlansQuery();
  return (
    <section className="page container" aria-labelledby="plans-title">
      <h1 id="plans-title">Portfolio Plans</h1>
      <p className="plans__lead muted">
        Each plan has a fixed term and a fixed rate for that term, set before you invest. You see what you would get
        back before any money moves.
      </p>
      <RiskNotice />
      <QueryState
        query={plans}
        loading="Loading the plans…"
        failed="The plans could not be loaded"
        empty={{ when: (data) => data.plans.length === 0, message: 'No plans are open for new investments right now.' }}
      >
        {(data) => (
          <>
            <ul className="plan-grid" aria-label="Plans" aria-busy={plans.isFetching || undefined}>
              {data.plans.map((plan) => (
                <PlanCard key={plan._id} plan={plan} />
              ))}
            </ul>
            <p className="muted plans__footnote">
              Investing needs an account with a verified e-mail address and an approved identity check.
            </p>
          </>
        )}
      </QueryState>
    </section>
  );
}
