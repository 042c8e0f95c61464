import { Link } from 'react-router';
import { useGetPendingKycQuery, type KycQueue, type KycQueueItem } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { pagedQueue } from '../../components/PagedQueue';
import { countryName, waitingTime } from './queueWords';
import { useTranslation } from '../../i18n';

function QueueItem({ item, asOf }: { item: KycQueueItem; asOf: string }) {
  const { t } = useTranslation('staff');
  return (
    <li className="queue-item" data-testid="kyc-queue-item">
      <div className="queue-item__who">
        <h2 className="queue-item__name">
          <Link to={`/pending-kyc/${encodeURIComponent(item._id)}`}>{item.name || t('common.unnamed')}</Link>
        </h2>
        <p className="break-anywhere muted">{item.email}</p>
      </div>
      <p className="queue-item__meta">
        <span>{countryName(item.country)}</span>
        <span>
          {t('kyc.submission', { number: item.submission })}
          {item.submission > 1 ? <span className="badge badge--warning queue-item__badge">{t('kyc.reupload')}</span> : null}
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
  const { t } = useTranslation('staff');
  return (
    <section className="page container" aria-labelledby="kyc-queue-title">
      <p className="eyebrow">{t('common.eyebrow')}</p>
      <h1 id="kyc-queue-title">{t('kyc.queueTitle')}</h1>
      <p className="muted">{t('kyc.queueLead')}</p>
      <KycQueuePages />
    </section>
  );
}
