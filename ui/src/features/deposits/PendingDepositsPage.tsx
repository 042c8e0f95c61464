import { Link } from 'react-router';
import { useGetPendingDepositsQuery, type DepositQueue, type DepositQueueItem } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDateTime } from '../../components/format';
import { moneyQueueWords, pagedQueue, useWaitedFor, type QueuePageQuery } from '../../components/PagedQueue';
import { ProposalsNotice } from '../../components/ProposalsNotice';
import { useTranslation } from '../../i18n';
import { useRouteLabel } from './depositWords';
import { CHAIN_POLL_MS, ChainProgress, followedOnChain } from '../../components/ChainProgress';

function QueueItem({ item }: { item: DepositQueueItem }) {
  const { t } = useTranslation('deposits');
  const routeLabel = useRouteLabel();
  const waitedFor = useWaitedFor();
  const d = item.deposit;
  return (
    <li className="queue-item" data-testid="deposit-queue-item">
      <div className="queue-item__who">
        <h2 className="queue-item__name">
          <Link to={`/transaction/${encodeURIComponent(d.transactionId)}`}>{d.transactionId}</Link>
        </h2>
        <p className="break-anywhere muted">
          {d.user?.name || t('queue.unnamed')} · {d.user?.email}
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
      {/* Detected transfers wait for the network, not for staff: no decision is asked here. */}
      {followedOnChain(d) ? <ChainProgress audience="staff" confirmations={d.confirmations} confirmationsNeeded={d.confirmationsNeeded} /> : null}
    </li>
  );
}

// A page of the queue, asked again while a transfer on it is being confirmed by the network, so
// its confirmations move without a reload; the queue's own changes come with the staff feed.
const usePendingDepositsPage: QueuePageQuery<DepositQueue> = (arg, options) => {
  const page = useGetPendingDepositsQuery(arg, options);
  const following = page.data?.deposits.some((item) => followedOnChain(item.deposit)) ?? false;
  useGetPendingDepositsQuery(arg, { skip: !following, pollingInterval: CHAIN_POLL_MS });
  return page;
};

const DepositQueuePages = pagedQueue<DepositQueue, DepositQueueItem>({
  usePage: usePendingDepositsPage,
  items: (page) => page.deposits,
  itemKey: (item) => item.deposit.transactionId,
  renderItem: (item) => <QueueItem item={item} />,
  useWords: moneyQueueWords('deposits'),
  testId: 'deposit',
});

export function PendingDepositsPage() {
  const { t } = useTranslation('deposits');
  return (
    <section className="page container" aria-labelledby="deposit-queue-title">
      <p className="eyebrow">{t('queue.eyebrow')}</p>
      <h1 id="deposit-queue-title">{t('queue.title')}</h1>
      <p className="muted">{t('queue.lead')}</p>
      <ProposalsNotice kind="deposit_confirmation" />
      <DepositQueuePages />
    </section>
  );
}
