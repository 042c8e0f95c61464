import { Link } from 'react-router';
import { useGetPendingInvestmentsQuery, type InvestmentQueue, type InvestmentQueueItem } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDateTime } from '../../components/format';
import { moneyQueueWords, pagedQueue, useWaitedFor } from '../../components/PagedQueue';
import { aprPercent } from '../../components/planWords';
import { Trans, useLocale, useTranslation } from '../../i18n';
import { InvestmentDecision } from './InvestmentDecision';

function QueueItem({ item }: { item: InvestmentQueueItem }) {
  const { t } = useTranslation('invest');
  const locale = useLocale();
  const waitedFor = useWaitedFor();
  const inv = item.investment;
  return (
    <li className="queue-item queue-item--decide" data-testid="investment-queue-item">
      <div className="queue-item__who">
        <h2 className="queue-item__name">
          <Link to={`/investment/${encodeURIComponent(inv._id)}`}>
            <Trans t={t} i18nKey="queue.item" values={{ plan: inv.plan }} components={{ amount: <Amount amount={inv.amount} /> }} />
          </Link>
        </h2>
        <p className="movement__ref" data-testid="investment-queue-reference">
          {inv.reference}
        </p>
        <p className="break-anywhere muted">
          {inv.user?.name || t('queue.unnamed')} · {inv.user?.email}
        </p>
      </div>
      <p className="queue-item__meta">
        <span>{t('queue.terms', { days: t('days', { count: inv.termDays }), apr: aprPercent(inv.apr, locale) })}</span>
        <span>
          <Trans t={t} i18nKey="queue.pays" components={{ amount: <Amount amount={inv.payout} /> }} />
        </span>
        <span>
          <time dateTime={inv.requestedAt} title={formatDateTime(inv.requestedAt)}>
            {waitedFor(item.ageSeconds)}
          </time>
        </span>
      </p>
      <div className="queue-item__decision">
        <InvestmentDecision investment={inv} />
      </div>
    </li>
  );
}

const InvestmentQueuePages = pagedQueue<InvestmentQueue, InvestmentQueueItem>({
  usePage: useGetPendingInvestmentsQuery,
  items: (page) => page.pendingInvestments,
  itemKey: (item) => item.investment._id,
  renderItem: (item) => <QueueItem item={item} />,
  useWords: moneyQueueWords('invest'),
  testId: 'investment',
});

export function PendingInvestmentsPage() {
  const { t } = useTranslation('invest');
  return (
    <section className="page container" aria-labelledby="investment-queue-title">
      <p className="eyebrow">{t('queue.eyebrow')}</p>
      <h1 id="investment-queue-title">{t('queue.title')}</h1>
      <p className="muted">{t('queue.intro')}</p>
      <InvestmentQueuePages />
    </section>
  );
}
