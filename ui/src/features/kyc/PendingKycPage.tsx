import { Link } from 'react-router';
import { useGetPendingKycQuery, type KycQueue, type KycQueueItem } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { pagedQueue, useWaitedFor } from '../../components/PagedQueue';
import { useCountryName, waitedSeconds } from './queueWords';
import { useTranslation } from '../../i18n';

function QueueItem({ item, asOf }: { item: KycQueueItem; asOf: string }) {
  const { t } = useTranslation('staff');
  const countryName = useCountryName();
  const waitedFor = useWaitedFor();
  const waited = waitedSeconds(item.submittedAt, asOf);
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
            {waited === null ? null : waitedFor(waited)}
          </time>
        </span>
      </p>
    </li>
  );
}

function useQueueWords() {
  const { t } = useTranslation('staff');
  return {
    total: (count: number) => t('kyc.queue.total', { count }),
    loadingMore: t('kyc.queue.loadingMore'),
    moreFailed: t('kyc.queue.moreFailed'),
    empty: t('kyc.queue.empty'),
    list: (page: number) => (page === 1 ? t('kyc.queue.list') : t('kyc.queue.listMore', { page })),
    failed: t('kyc.queue.failed'),
  };
}

const KycQueuePages = pagedQueue<KycQueue, KycQueueItem>({
  usePage: useGetPendingKycQuery,
  items: (page) => page.pendingUsers,
  itemKey: (item) => item._id,
  renderItem: (item, page) => <QueueItem item={item} asOf={page.asOf} />,
  useWords: useQueueWords,
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
