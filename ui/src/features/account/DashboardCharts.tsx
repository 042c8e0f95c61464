import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Dashboard } from '../../api/enhanced';
import { amountForChart, formatUsd } from '../../components/money';

// The charts are drawn by recharts, which is large: this module is loaded on its own, after the
// dashboard shows, so neither the first page nor the dashboard waits for it. The figures are in
// the tables beside the charts, which is what screen readers read; the drawings are hidden from
// them.

const usd = (value: unknown) => formatUsd(String(value));

export function BalanceChart({ points }: { points: Dashboard['balance'] }) {
  const data = points.map((p) => ({ date: p.date, balance: amountForChart(p.balance) }));
  return (
    <div className="chart" aria-hidden="true" data-testid="balance-chart">
      <ResponsiveContainer width="100%" height={220}>
        <LineChart accessibilityLayer={false} data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid stroke="#d0d7e1" strokeDasharray="3 3" />
          <XAxis dataKey="date" tick={{ fontSize: 12 }} minTickGap={24} />
          <YAxis tickFormatter={usd} tick={{ fontSize: 12 }} width={80} />
          <Tooltip formatter={usd} />
          <Line type="stepAfter" dataKey="balance" name="Available balance" stroke="#0a58a8" strokeWidth={2} dot={data.length < 40} isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

export function ReturnsChart({ months }: { months: Dashboard['returnsByMonth'] }) {
  const data = months.map((m) => ({ month: m.month, returns: amountForChart(m.returns) }));
  return (
    <div className="chart" aria-hidden="true" data-testid="returns-chart">
      <ResponsiveContainer width="100%" height={220}>
        <BarChart accessibilityLayer={false} data={data} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid stroke="#d0d7e1" strokeDasharray="3 3" />
          <XAxis dataKey="month" tick={{ fontSize: 12 }} />
          <YAxis tickFormatter={usd} tick={{ fontSize: 12 }} width={80} />
          <Tooltip formatter={usd} />
          <Bar dataKey="returns" name="Returns" fill="#166534" isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
