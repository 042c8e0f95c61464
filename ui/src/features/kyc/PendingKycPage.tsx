import { Link } from 'react-router';
import { useGetPendingKycQuery, type KycQueue, type KycQueueItem } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { pagedQueue } from '../../components/PagedQueue';
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

const KycQueuePages = pagedQueue<KycQueue, KycQueueItem>({
  usePage: useGetPendingKycQuery,
  items: (page) => page.pendingUsers,
  itemKey: (item) => item._id,
  renderItem: (item, page) => <QueueItem item={item} asOf={page.asOf} />,
  noun: { one: 'identity check', many: 'identity checks' },
  failed: 'The queue could not be loaded',
  testId: 'kyc',
});

export function PendingKycPage() {
  return (
    <section className="page container" aria-labelledby="kyc-queue-title">
      <p className="eyebrow">Staff</p>
      <h1 id="kyc-queue-title">Identity Check Queue</h1>
      <p className="muted">Oldest first. Open a case to see the documents and decide.</p>
      <KycQueuePages />
    </section>
  );
}
