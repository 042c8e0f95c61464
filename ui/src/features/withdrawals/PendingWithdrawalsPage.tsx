import { useState } from 'react';
import { Link } from 'react-router';
import { useGetPendingWithdrawalsQuery, type WithdrawalQueue, type WithdrawalQueueItem } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { Amount } from '../../components/Amount';
import { waitedFor } from '../../components/format';
import { formatDateTime } from '../../components/format';
import { LoadError, QueryState } from '../../components/QueryState';
import { Spinner } from '../../components/Spinner';
import { ProposalsNotice } from '../../components/ProposalsNotice';
import { payoutLabel } from './withdrawalWords';

function QueueItem({ item }: { item: WithdrawalQueueItem }) {
  const w = item.withdrawal;
  return (
    <li className="queue-item" data-testid="withdrawal-queue-item">
      <div className="queue-item__who">
        <h2 className="queue-item__name">
          <Link to={`/withdrawal/${encodeURIComponent(w._id)}`}>
            <Amount amount={w.amount} /> to {w.user?.name || 'Unnamed user'}
          </Link>
        </h2>
        <p className="break-anywhere muted">{w.user?.email}</p>
      </div>
      <p className="queue-item__meta">
        <span>
          Pays <Amount amount={w.receives} />
        </span>
        <span>{payoutLabel(w.network)}</span>
        <span>
          <time dateTime={w.requestDate} title={formatDateTime(w.requestDate)}>
            {waitedFor(item.ageSeconds)}
          </time>
        </span>
      </p>
    </li>
  );
}

export const QUEUE_PAGE_SIZE = 50;

// One page of the queue, then the next once asked for; the next page's cursor comes from this
// page's current answer, so no withdrawal is shown twice or falls between two pages.
function Chunk(props: { cursor?: string; index: number; pages: number; onMore: () => void }) {
  const { cursor, index, pages, onMore } = props;
  const query = useGetPendingWithdrawalsQuery({ cursor, limit: QUEUE_PAGE_SIZE }, { refetchOnMountOrArgChange: true });
  const body = (data: WithdrawalQueue) => (
    <>
      {index === 0 ? (
        <p className="muted" data-testid="withdrawal-queue-total">
          {data.total === 1 ? '1 withdrawal is waiting.' : `${data.total} withdrawals are waiting.`}
        </p>
      ) : null}
      <ol
        className="queue"
        aria-label={index === 0 ? 'Withdrawals waiting, oldest first' : `More withdrawals waiting, page ${index + 1}`}
        aria-busy={query.isFetching || undefined}
      >
        {data.withdrawals.map((item) => (
          <QueueItem key={item.withdrawal._id} item={item} />
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
        failed="Failed to fetch pending withdrawals."
        empty={{ when: (data) => data.withdrawals.length === 0, message: 'No withdrawals are waiting.' }}
      >
        {body}
      </QueryState>
    );
  }
  if (query.data) return body(query.data);
  if (query.isError) {
    return (
      <LoadError
        title="More withdrawals could not be loaded"
        message={errorMessage(query.error, 'Please try again.')}
        onRetry={() => void query.refetch()}
      />
    );
  }
  return <Spinner label="Loading more withdrawals…" />;
}

export function PendingWithdrawalsPage() {
  const [pages, setPages] = useState(1);
  return (
    <section className="page container" aria-labelledby="withdrawal-queue-title">
      <p className="eyebrow">Staff</p>
      <h1 id="withdrawal-queue-title">Pending Withdrawals</h1>
      <p className="muted">Oldest first. Open a withdrawal, pay it out on-chain, then approve it with the transaction hash, or reject it.</p>
      <ProposalsNotice kind="withdrawal_approval" />
      <Chunk index={0} pages={pages} onMore={() => setPages((n) => n + 1)} />
    </section>
  );
}
