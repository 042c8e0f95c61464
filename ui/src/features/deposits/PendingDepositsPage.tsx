import { useState } from 'react';
import { Link } from 'react-router';
import { useGetPendingDepositsQuery, type DepositQueue, type DepositQueueItem } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { Amount } from '../../components/Amount';
import { formatDateTime } from '../../components/format';
import { LoadError, QueryState } from '../../components/QueryState';
import { Spinner } from '../../components/Spinner';
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

export const QUEUE_PAGE_SIZE = 50;

// One page of the queue, then the next once asked for. The next page's cursor comes from this
// page's current answer, so when the queue is read again (after a decision) the pages after it
// follow, and no deposit is shown twice or falls between two pages.
function Chunk(props: { cursor?: string; index: number; pages: number; onMore: () => void }) {
  const { cursor, index, pages, onMore } = props;
  const query = useGetPendingDepositsQuery({ cursor, limit: QUEUE_PAGE_SIZE }, { refetchOnMountOrArgChange: true });
  const body = (data: DepositQueue) => (
    <>
      {index === 0 ? (
        <p className="muted" data-testid="deposit-queue-total">
          {data.total === 1 ? '1 deposit is waiting.' : `${data.total} deposits are waiting.`}
        </p>
      ) : null}
      <ol
        className="queue"
        aria-label={index === 0 ? 'Deposits waiting, oldest first' : `More deposits waiting, page ${index + 1}`}
        aria-busy={query.isFetching || undefined}
      >
        {data.deposits.map((item) => (
          <QueueItem key={item.deposit.transactionId} item={item} />
        ))}
      </ol>
      {data.nextCursor ? (
        index + 1 < pages ? (
          <Chunk {...props} cursor={data.nextCursor} index={index + 1} />
        ) : (
          <button type="button" className="button button--secondary queue-more" onClick={onMore}>
            Load more
          </button>
        )
      ) : null}
    </>
  );
  if (index === 0) {
    return (
      <QueryState
        query={query}
        loading="Loading the queue…"
        failed="Failed to fetch pending deposits."
        empty={{ when: (data) => data.deposits.length === 0, message: 'No deposits are waiting.' }}
      >
        {body}
      </QueryState>
    );
  }
  if (query.data) return body(query.data);
  if (query.isError) {
    return (
      <LoadError
        title="More deposits could not be loaded"
        message={errorMessage(query.error, 'Please try again.')}
        onRetry={() => void query.refetch()}
      />
    );
  }
  return <Spinner label="Loading more deposits…" />;
}

export function PendingDepositsPage() {
  const [pages, setPages] = useState(1);
  return (
    <section className="page container" aria-labelledby="deposit-queue-title">
      <p className="eyebrow">Staff</p>
      <h1 id="deposit-queue-title">Pending Deposits</h1>
      <p className="muted">Oldest first. Open a deposit to check it arrived, then confirm or reject it.</p>
      <ProposalsNotice kind="deposit_confirmation" />
      <Chunk index={0} pages={pages} onMore={() => setPages((n) => n + 1)} />
    </section>
  );
}
