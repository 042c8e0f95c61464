import { Link } from 'react-router';
import { useGetPendingDepositsQuery, type DepositQueue, type DepositQueueItem } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDateTime } from '../../components/format';
import { pagedQueue } from '../../components/PagedQueue';
import { ProposalsNotice } from '../../components/ProposalsNotice';
import { routeLabel, waitedFor } from './depositWords';

function QueueItem({ item }: { item: DepositQueueItem }) {
  const d = item.deposit;
  return (
    <li className="queue-item" data-testid="deposit-queue-item">
      <div className="queue-item__who">
        <h2 className="queue-item__name">
          <Link to={`/transaction/${encodeURIComponent(d.transactionId)}`}>{d.transactionId}</Link>
        </h2>
        <p className="break-anywhere muted">
          {d.user?.name || 'Unnamed user'} · {d.user?.email}
        </p>
      </div>
      <p className="queue-item__meta">
        <span>
          <Amount amount={d.amount} />
        </span>
        <span>{routeLabel(d.asset, d.network)}</span>
        <span>
          <time dateTime={d.requestedAt} title={formatDateTime(d.requestedAt)}>
            {waitedFor(item.ageSeconds)}
          </time>
        </span>
      </p>
    </li>
  );
}

const DepositQueuePages = pagedQueue<DepositQueue, DepositQueueItem>({
  usePage: useGetPendingDepositsQuery,
  items: (page) => page.deposits,
  itemKey: (item) => item.deposit.transactionId,
  renderItem: (item) => <QueueItem item={item} />,
  noun: { one: 'deposit', many: 'deposits' },
  failed: 'Failed to fetch pending deposits.',
  testId: 'deposit',
});

export function PendingDepositsPage() {
  return (
    <section className="page container" aria-labelledby="deposit-queue-title">
      <p className="eyebrow">Staff</p>
      <h1 id="deposit-queue-title">Pending Deposits</h1>
      <p className="muted">Oldest first. Open a deposit to check it arrived, then confirm or reject it.</p>
      <ProposalsNotice kind="deposit_confirmation" />
      <DepositQueuePages />
    </section>
  );
}
