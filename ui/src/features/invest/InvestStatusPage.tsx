import { Link } from 'react-router';
import { useGetInvestmentHistoryQuery, type Investment } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { QueryState } from '../../components/QueryState';
import { days } from '../../components/planWords';
import { formatDate, investmentBadge, statusText } from './investWords';

function Row({ inv }: { inv: Investment }) {
  return (
    <li className="queue-item" data-testid="investment-item">
      <div className="queue-item__who">
        <h2 className="queue-item__name">
          <Link to={`/investment/${encodeURIComponent(inv._id)}`}>
            <Amount amount={inv.amount} /> in {inv.plan}
          </Link>
        </h2>
        <p className="muted">
          {days(inv.termDays)}
          {inv.endDate ? ` · ends ${formatDate(inv.endDate)}` : ''}
        </p>
      </div>
      <p className="queue-item__meta">
        <span className={investmentBadge(inv.status)} data-testid="investment-status">
          {statusText(inv.status, inv.closedEarly)}
        </span>
        {inv.status !== 'Rejected' ? (
          <span>
            pays <Amount amount={inv.closedEarly ? inv.amount : inv.payout} />
          </span>
        ) : null}
      </p>
    </li>
  );
}

export function InvestStatusPage() {
  const list = useGetInvestmentHistoryQuery({}, { refetchOnMountOrArgChange: true });
  return (
    <section className="page container" aria-labelledby="portfolio-title">
      <h1 id="portfolio-title">My Portfolio</h1>
      <QueryState
        query={list}
        loading="Loading your investments…"
        failed="Your investments could not be loaded"
        empty={{
          when: (data) => data.investments.length === 0,
          message: (
            <>
              You have no investments yet. <Link to="/start-invest">Start an investment</Link>
            </>
          ),
        }}
      >
        {(data) => (
          <ol className="queue" aria-busy={list.isFetching || undefined}>
            {data.investments.map((inv) => (
              <Row key={inv._id} inv={inv} />
            ))}
          </ol>
        )}
      </QueryState>
    </section>
  );
}
