import { Link } from 'react-router';
import { useGetPendingKycQuery, type KycQueueItem } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { countryName, waitingTime } from './queueWords';

function QueueItem({ item, asOf }: { item: KycQueueItem; asOf: string }) {
  return (
    <li className="queue-item" data-testid="kyc-queue-item">
      <div className="queue-item__who">
        <h2 className="queue-item__name">
          <Link to={`/pending-kyc/${encodeURIComponent(item._id)}`}>{item.name || 'Unnamed user'}</Link>
        </h2>
        <p className="break-anywhere muted">{item.email}</p>
      </div>
      <p className="queue-item__meta">
        <span>{countryName(item.country)}</span>
        <span>
          Submission {item.submission}
          {item.submission > 1 ? <span className="badge badge--warning queue-item__badge">re-upload</span> : null}
        </span>
        <span>
          <time dateTime={item.submittedAt} title={formatDateTime(item.submittedAt)}>
            {waitingTime(item.submittedAt, asOf)}
          </time>
        </span>
      </p>
    </li>
  );
}

export function PendingKycPage() {
  const queue = useGetPendingKycQuery({}, { refetchOnMountOrArgChange: true });
  return (
    <section className="page container" aria-labelledby="kyc-queue-title">
      <p className="eyebrow">Staff</p>
      <h1 id="kyc-queue-title">Identity Check Queue</h1>
      <p className="muted">Oldest first. Open a case to see the documents and decide.</p>
      <QueryState
        query={queue}
        loading="Loading the queue…"
        failed="The queue could not be loaded"
        empty={{ when: (data) => data.pendingUsers.length === 0, message: 'No identity checks are waiting.' }}
      >
        {(data) => (
          <>
            <p className="visually-hidden" role="status">
              {data.pendingUsers.length} {data.pendingUsers.length === 1 ? 'identity check is' : 'identity checks are'} waiting
            </p>
            <ol className="queue" aria-busy={queue.isFetching || undefined}>
              {data.pendingUsers.map((item) => (
                <QueueItem key={item._id} item={item} asOf={data.asOf} />
              ))}
            </ol>
          </>
        )}
      </QueryState>
    </section>
  );
}
