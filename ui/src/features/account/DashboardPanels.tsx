import { lazy, Suspense, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useGetDashboardQuery, type Dashboard, type HistoryItem } from '../../api/enhanced';
import { Amount } from '../../components/Amount';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { Spinner } from '../../components/Spinner';
import { StatusBadge } from '../../components/MoneyStatus';
import { useLiveRefresh } from '../../components/useLiveRefresh';
import { useTranslation } from '../../i18n';

const BalanceChart = lazy(() => import('./DashboardCharts').then((m) => ({ default: m.BalanceChart })));
const ReturnsChart = lazy(() => import('./DashboardCharts').then((m) => ({ default: m.ReturnsChart })));

// Where a pending request is followed up: an investment in the portfolio, the rest in the
// history.
function pendingLink(item: HistoryItem) {
  return item.type === 'Investment' ? '/invest-status' : '/transaction-History';
}

function ChartFigure(props: { title: string; id: string; chart: ReactNode; table: ReactNode; empty: string | null }) {
  const { title, id, chart, table, empty } = props;
  return (
    <figure className="card chart-card" aria-labelledby={id}>
      <figcaption id={id} className="panel__title">
        {title}
      </figcaption>
      {empty ? (
        <p className="empty">{empty}</p>
      ) : (
        <>
          <Suspense fallback={<Spinner label="Drawing the chart…" />}>{chart}</Suspense>
          {table}
        </>
      )}
    </figure>
  );
}

function BalanceTable({ points }: { points: Dashboard['balance'] }) {
  return (
    // Hidden by a wrapper: a table sizes to its content whatever width it is given.
    <div className="visually-hidden">
      <table>
        <caption>Available balance at the end of each day with activity</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Available balance</th>
          </tr>
        </thead>
        <tbody>
          {points.map((p) => (
            <tr key={p.date}>
              <td>{p.date}</td>
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
  return (
    <div className="visually-hidden">
      <table>
        <caption>Returns paid by month</caption>
        <thead>
          <tr>
            <th scope="col">Month</th>
            <th scope="col">Returns</th>
          </tr>
        </thead>
        <tbody>
          {months.map((m) => (
            <tr key={m.month}>
              <td>{m.month}</td>
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

function PendingPanel({ items }: { items: HistoryItem[] }) {
  const { t: th } = useTranslation('history');
  return (
    <section className="card" aria-labelledby="pending-title" data-testid="pending-panel">
      <h2 id="pending-title" className="panel__title">
        Pending
      </h2>
      {items.length === 0 ? (
        <p className="empty">Nothing is waiting for a decision.</p>
      ) : (
        <ul className="pending-list">
          {items.map((item) => (
            <li key={item._id} className="pending-list__item">
              <span>
                <strong>{th(`type.${item.type}`)}</strong> <Amount amount={item.amount} /> <StatusBadge status={item.status} />
              </span>
              <span className="pending-list__meta">
                Requested {formatDateTime(item.date)} · <Link to={pendingLink(item)}>{item.reference}</Link>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

// The dashboard's charts and pending requests, kept current by the live refresh.
export function DashboardPanels() {
  useLiveRefresh();
  const query = useGetDashboardQuery();
  return (
    <QueryState query={query} loading="Loading your charts…" failed="Your charts could not be loaded">
      {(d) => (
        <div className="dashboard-panels">
          <PendingPanel items={d.pending} />
          <ChartFigure
            id="balance-chart-title"
            title="Available balance over time"
            empty={d.balance.length === 0 ? 'Your balance will show here after your first deposit.' : null}
            chart={<BalanceChart points={d.balance} />}
            table={<BalanceTable points={d.balance} />}
          />
          <ChartFigure
            id="returns-chart-title"
            title="Returns by month"
            empty={d.returnsByMonth.length === 0 ? 'Returns show here once an investment matures.' : null}
            chart={<ReturnsChart months={d.returnsByMonth} />}
            table={<ReturnsTable months={d.returnsByMonth} />}
          />
        </div>
      )}
    </QueryState>
  );
}
