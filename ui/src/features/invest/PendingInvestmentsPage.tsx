import { Link } from 'react-router';
import { useGetPendingInvestmentsQuery, type InvestmentQueueItem } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { waitedFor } from '../../components/format';
import { aprPercent, days } from '../../components/planWords';
import { InvestmentDecision } from './InvestmentDecision';

function QueueItem({ item }: { item: InvestmentQueueItem }) {
  const inv = item.investment;
  return (
    <li className="queue-item queue-item--decide" data-testid="investment-queue-item">
      <div className="queue-item__who">
        <h2 className="queue-item__name">
          <Link to={`/investment/${encodeURIComponent(inv._id)}`}>
            <Amount amount={inv.amount} /> in {inv.plan}
          </Link>
        </h2>
        <p className="break-anywhere muted">
          {inv.user?.name || 'Unnamed user'} · {inv.user?.email}
        </p>
      </div>
      <p className="queue-item__meta">
        <span>
          {days(inv.termDays)} at {aprPercent(inv.apr)} a year
        </span>
        <span>
          pays <Amount amount={inv.payout} />
        </span>
        <span>
          <time dateTime={inv.requestedAt} title={formatDateTime(inv.requestedAt)}>
            {waitedFor(item.ageSeconds)}
          </time>
        </span>
      </p>
      <div className="queue-item__decision">
        <InvestmentDecision investment={inv} />
      </div>
    </li>
  );
}

export function PendingInvestmentsPage() {
  const queue = useGetPendingInvestmentsQuery({}, { refetchOnMountOrArgChange: true });
  return (
    <section className="page container" aria-labelledby="investment-queue-title">
      <p className="eyebrow">Staff</p>
      <h1 id="investment-queue-title">Investment Queue</h1>
      <p className="muted">Oldest first. Approving starts the term now and fixes the return; rejecting releases the held amount.</p>
      <QueryState
        query={queue}
        loading="Loading the queue…"
        failed="Failed to fetch pending investments."
        empty={{ when: (data) => data.pendingInvestments.length === 0, message: 'No investments are waiting.' }}
      >
        {(data) => (
          <ol className="queue" aria-busy={queue.isFetching || undefined}>
            {data.pendingInvestments.map((item) => (
              <QueueItem key={item.investment._id} item={item} />
            ))}
          </ol>
        )}
      </QueryState>
    </section>
  );
}
