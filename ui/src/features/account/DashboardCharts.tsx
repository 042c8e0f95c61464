import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Dashboard } from '../../api/enhanced';
import { formatDate, formatMonth } from '../../components/format';
import { amountForChart, formatUsd } from '../../components/money';
import { useLocale, useTranslation } from '../../i18n';

// The charts are drawn by recharts, which is large: this module is loaded on its own, after the
// dashboard shows, so neither the first page nor the dashboard waits for it. The figures are in
// the summary and the table beside each chart, which is what screen readers read; the drawings
// are hidden from them. Dates are written as everywhere else on the page (components/format.ts).
// A chart is drawn only from two data points up (chartShape.ts).

// No bar is wider than this, so two or three months do not turn into slabs across the card.
export const MAX_BAR_PX = 48;

function useUsd() {
  const locale = useLocale();
  return (value: unknown) => formatUsd(String(value), locale);
}

export function BalanceChart({ points }: { points: Dashboard['balance'] }) {
  const { t } = useTranslation('dashboard');
  const usd = useUsd();
  const data = points.map((p) => ({ date: p.date, balance: amountForChart(p.balance) }));
  return (
    <div className="chart" aria-hidden="true" data-testid="balance-chart">
      <ResponsiveContainer width="100%" height={220}>
        <LineChart accessibilityLayer={false} data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid stroke="var(--color-border)" strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="date" tickFormatter={(d: string) => formatDate(d)} tick={{ fontSize: 12 }} minTickGap={32} />
          <YAxis tickFormatter={usd} tick={{ fontSize: 12 }} width={80} />
          <Tooltip formatter={usd} labelFormatter={(d) => formatDate(String(d))} />
          <Line
            type="stepAfter"
            dataKey="balance"
            name={t('charts.balance')}
            stroke="var(--color-primary)"
            strokeWidth={2}
            dot={data.length < 40}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

export function ReturnsChart({ months }: { months: Dashboard['returnsByMonth'] }) {
  const { t } = useTranslation('dashboard');
  const usd = useUsd();
  const data = months.map((m) => ({ month: m.month, returns: amountForChart(m.returns) }));
  return (
    <div className="chart" aria-hidden="true" data-testid="returns-chart">
      <ResponsiveContainer width="100%" height={220}>
        <BarChart accessibilityLayer={false} data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }} maxBarSize={MAX_BAR_PX}>
          <CartesianGrid stroke="var(--color-border)" strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="month" tickFormatter={(m: string) => formatMonth(m)} tick={{ fontSize: 12 }} />
          <YAxis tickFormatter={usd} tick={{ fontSize: 12 }} width={80} />
          <Tooltip formatter={usd} labelFormatter={(m) => formatMonth(String(m))} />
          <Bar dataKey="returns" name={t('charts.returns')} fill="var(--color-success-edge)" radius={[4, 4, 0, 0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
