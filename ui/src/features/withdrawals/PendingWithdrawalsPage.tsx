import { Link } from 'react-router';
import { useGetPendingWithdrawalsQuery, type WithdrawalQueue, type WithdrawalQueueItem } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDateTime } from '../../components/format';
import { moneyQueueWords, pagedQueue, useWaitedFor } from '../../components/PagedQueue';
import { ProposalsNotice } from '../../components/ProposalsNotice';
import { Trans, useTranslation } from '../../i18n';
import { usePayoutLabel } from './withdrawalWords';

function QueueItem({ item }: { item: WithdrawalQueueItem }) {
  const { t } = useTranslation('withdrawals');
  const payoutLabel = usePayoutLabel();
  const waitedFor = useWaitedFor();
  const w = item.withdrawal;
  return (
    <li className="queue-item" data-testid="withdrawal-queue-item">
      <div className="queue-item__who">
        <h2 className="queue-item__name">
          <Link to={`/withdrawal/${encodeURIComponent(w._id)}`}>
            <Trans t={t} i18nKey="queue.item" values={{ name: w.user?.name || t('queue.unnamed') }} components={{ amount: <Amount amount={w.amount} /> }} />
          </Link>
        </h2>
        <p className="break-anywhere muted">{w.user?.email}</p>
      </div>
      <p className="queue-item__meta">
        <span>
          <Trans t={t} i18nKey="queue.pays" components={{ amount: <Amount amount={w.receives} /> }} />
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

const WithdrawalQueuePages = pagedQueue<WithdrawalQueue, WithdrawalQueueItem>({
  usePage: useGetPendingWithdrawalsQuery,
  items: (page) => page.withdrawals,
  itemKey: (item) => item.withdrawal._id,
  renderItem: (item) => <QueueItem item={item} />,
  useWords: moneyQueueWords('withdrawals'),
  testId: 'withdrawal',
});

export function PendingWithdrawalsPage() {
  const { t } = useTranslation('withdrawals');
  return (
    <section className="page container" aria-labelledby="withdrawal-queue-title">
      <p className="eyebrow">{t('queue.eyebrow')}</p>
      <h1 id="withdrawal-queue-title">{t('queue.title')}</h1>
      <p className="muted">{t('queue.lead')}</p>
      <ProposalsNotice kind="withdrawal_approval" />
      <WithdrawalQueuePages />
    </section>
  );
}
