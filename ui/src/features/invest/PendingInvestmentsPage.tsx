import { Link } from 'react-router';
import { useGetPendingInvestmentsQuery, type InvestmentQueue, type InvestmentQueueItem } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDateTime, waitedFor } from '../../components/format';
import { pagedQueue } from '../../components/PagedQueue';
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

const InvestmentQueuePages = pagedQueue<InvestmentQueue, InvestmentQueueItem>({
  usePage: useGetPendingInvestmentsQuery,
  items: (page) => page.pendingInvestments,
  itemKey: (item) => item.investment._id,
  renderItem: (item) => <QueueItem item={item} />,
  noun: { one: 'investment', many: 'investments' },
  failed: 'Failed to fetch pending investments.',
  testId: 'investment',
});

export function PendingInvestmentsPage() {
  return (
    <section className="page container" aria-labelledby="investment-queue-title">
      <p className="eyebrow">Staff</p>
      <h1 id="investment-queue-title">Investment Queue</h1>
      <p className="muted">Oldest first. Approving starts the term now and fixes the return; rejecting releases the held amount.</p>
      <InvestmentQueuePages />
    </section>
  );
}
