import { Link } from 'react-router';
import { useGetPendingDepositsQuery, type DepositQueueItem } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
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

export function PendingDepositsPage() {
  const queue = useGetPendingDepositsQuery({}, { refetchOnMountOrArgChange: true });
  return (
    <section className="page container" aria-labelledby="deposit-queue-title">
      <p className="eyebrow">Staff</p>
      <h1 id="deposit-queue-title">Pending Deposits</h1>
      <p className="muted">Oldest first. Open a deposit to check it arrived, then confirm or reject it.</p>
      <ProposalsNotice kind="deposit_confirmation" />
      <QueryState
        query={queue}
        loading="Loading the queue…"
        failed="Failed to fetch pending deposits."
        empty={{
          when: (data) => data.deposits.length === 0,
          message: 'No deposits are waiting.',
        }}
      >
        {(data) => (
          <ol className="queue" aria-busy={queue.isFetching || undefined}>
            {data.deposits.map((item) => (
              <QueueItem key={item.deposit.transactionId} item={item} />
            ))}
          </ol>
        )}
      </QueryState>
    </section>
  );
}
