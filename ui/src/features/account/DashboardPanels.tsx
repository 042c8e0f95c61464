import { lazy, Suspense, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useGetDashboardQuery, type Dashboard, type HistoryItem } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDate, formatDateTime, formatMonth } from '../../components/format';
import { formatUsd } from '../../components/money';
import { QueryState } from '../../components/QueryState';
import { Spinner } from '../../components/Spinner';
import { useLabels } from '../../components/labels';
import { statusTone } from '../../components/MoneyStatus';
import { useLiveRefresh } from '../../components/useLiveRefresh';
import { useLocale, useTranslation } from '../../i18n';
import { chartShape } from './chartShape';
import { CHAIN_POLL_MS, ChainProgress, followedOnChain } from '../../components/ChainProgress';

const BalanceChart = lazy(() => import('./DashboardCharts').then((m) => ({ default: m.BalanceChart })));
const ReturnsChart = lazy(() => import('./DashboardCharts').then((m) => ({ default: m.ReturnsChart })));

// Where a pending request is followed up: an investment in the portfolio, the rest in the
// history.
function pendingLink(item: HistoryItem) {
  return item.type === 'Investment' ? '/invest-status' : '/transaction-History';
}

interface ChartFigureProps {
  title: string;
  id: string;
  points: number;
  empty: string;
  // The one data point as a figure with its date (chartShape).
  single: ReactNode;
  chart: ReactNode;
  // What the drawing shows, in words: visible under it, and its text alternative with the table.
  summary: string;
  table: ReactNode;
}

function ChartFigure({ title, id, points, empty, single, chart, summary, table }: ChartFigureProps) {
  const { t } = useTranslation('dashboard');
  const shape = chartShape(points);
  return (
    <figure className="card chart-card" aria-labelledby={id} data-shape={shape}>
      <figcaption id={id} className="panel__title">
        {title}
      </figcaption>
      {shape === 'empty' ? <p className="empty">{empty}</p> : null}
      {shape === 'single' ? single : null}
      {shape === 'chart' ? (
        <>
          <Suspense fallback={<Spinner label={t('charts.drawing')} />}>{chart}</Suspense>
          <p className="chart-card__summary">{summary}</p>
          {table}
        </>
      ) : null}
    </figure>
  );
}

function ChartStat({ amount, label, testId }: { amount: string; label: string; testId: string }) {
  return (
    <p className="chart-stat" data-testid={testId}>
      <span className="chart-stat__value">
        <Amount amount={amount} />
      </span>
      <span className="chart-stat__label">{label}</span>
    </p>
  );
}

function BalanceTable({ points }: { points: Dashboard['balance'] }) {
  const { t } = useTranslation('dashboard');
  return (
    // Hidden by a wrapper: a table sizes to its content whatever width it is given.
    <div className="visually-hidden">
      <table>
        <caption>{t('charts.balanceCaption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('charts.date')}</th>
            <th scope="col">{t('charts.balance')}</th>
          </tr>
        </thead>
        <tbody>
          {points.map((p) => (
            <tr key={p.date}>
              <td>{formatDate(p.date)}</td>
              <td>
                <Amount amount={p.balance} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ReturnsTable({ months }: { months: Dashboard['returnsByMonth'] }) {
  const { t } = useTranslation('dashboard');
  return (
    <div className="visually-hidden">
      <table>
        <caption>{t('charts.returnsCaption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('charts.month')}</th>
            <th scope="col">{t('charts.returns')}</th>
          </tr>
        </thead>
        <tbody>
          {months.map((m) => (
            <tr key={m.month}>
              <td>{formatMonth(m.month)}</td>
              <td>
                <Amount amount={m.returns} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function PendingList({ items }: { items: HistoryItem[] }) {
  const { t } = useTranslation('dashboard');
  const { t: th } = useTranslation('history');
  const labels = useLabels();
  if (items.length === 0) return <p className="empty">{t('pending.empty')}</p>;
  return (
    <ul className="pending-list">
      {items.map((item) => (
        <li key={item._id} className="pending-list__item">
          <span>
            <strong>{th(`type.${item.type}`)}</strong> <Amount amount={item.amount} /> <span className={`badge badge--${statusTone(item.status)}`}>{item.status === 'Pending' ? th('status.pending') : labels.money(item.status)}</span>
          </span>
          <span className="pending-list__meta">
            {t('pending.requested', { date: formatDateTime(item.date) })} · <Link to={pendingLink(item)}>{item.reference}</Link>
          </span>
          {followedOnChain(item) ? (
            <ChainProgress audience="investor" confirmations={item.confirmations} confirmationsNeeded={item.confirmationsNeeded} />
          ) : null}
        </li>
      ))}
    </ul>
  );
}

function Charts({ d }: { d: Dashboard }) {
  const { t } = useTranslation('dashboard');
  const locale = useLocale();
  const { balance, returnsByMonth: months } = d;
  const firstPoint = balance[0];
  const lastPoint = balance[balance.length - 1];
  const firstMonth = months[0];
  const lastMonth = months[months.length - 1];
  return (
    <div className="dashboard-charts">
      <ChartFigure
        id="balance-chart-title"
        title={t('charts.balanceTitle')}
        points={balance.length}
        empty={t('charts.balanceEmpty')}
        single={
          firstPoint ? (
            <ChartStat testId="balance-single" amount={firstPoint.balance} label={t('charts.balanceSingle', { date: formatDate(firstPoint.date) })} />
          ) : null
        }
        chart={<BalanceChart points={balance} />}
        summary={
          firstPoint && lastPoint
            ? t('charts.balanceSummary', {
                first: formatUsd(firstPoint.balance, locale),
                firstDate: formatDate(firstPoint.date),
                last: formatUsd(lastPoint.balance, locale),
                lastDate: formatDate(lastPoint.date),
              })
            : ''
        }
        table={<BalanceTable points={balance} />}
      />
      <ChartFigure
        id="returns-chart-title"
        title={t('charts.returnsTitle')}
        points={months.length}
        empty={t('charts.returnsEmpty')}
        single={
          firstMonth ? (
            <ChartStat testId="returns-single" amount={firstMonth.returns} label={t('charts.returnsSingle', { month: formatMonth(firstMonth.month) })} />
          ) : null
        }
        chart={<ReturnsChart months={months} />}
        summary={
          firstMonth && lastMonth
            ? t('charts.returnsSummary', { count: months.length, from: formatMonth(firstMonth.month), to: formatMonth(lastMonth.month) })
            : ''
        }
        table={<ReturnsTable months={months} />}
      />
    </div>
  );
}

// The dashboard's pending requests (with the investor's identity-check notice, when there is
// one) and its charts, kept current by the live refresh.
export function DashboardPanels({ notice }: { notice?: ReactNode }) {
  const { t } = useTranslation('dashboard');
  useLiveRefresh();
  const query = useGetDashboardQuery();
  // Confirmations arrive with blocks, not with events of the investor's own: while a deposit
  // is being confirmed by the network the dashboard asks again, and stops once none is. Its
  // crediting is an event, which the live refresh brings with the new balance.
  const following = query.data?.pending.some(followedOnChain) ?? false;
  useGetDashboardQuery(undefined, { skip: !following, pollingInterval: CHAIN_POLL_MS });
  return (
    <>
      <section className="card dashboard__section" aria-labelledby="pending-title" data-testid="pending-panel">
        <h2 id="pending-title" className="panel__title">
          {t('pending.title')}
        </h2>
        {notice}
        {/* Polite: a confirmation arriving is news, never an interruption. */}
        <div aria-live="polite">
          <QueryState query={query} loading={t('pending.loading')} failed={t('pending.failed')}>
            {(d) => <PendingList items={d.pending} />}
          </QueryState>
        </div>
      </section>
      <section className="dashboard__section" aria-labelledby="charts-title">
        <h2 id="charts-title" className="section-title">
          {t('charts.title')}
        </h2>
        <QueryState query={query} loading={t('charts.loading')} failed={t('charts.failed')}>
          {(d) => <Charts d={d} />}
        </QueryState>
      </section>
    </>
  );
}
