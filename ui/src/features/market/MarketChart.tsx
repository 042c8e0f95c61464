import { Area, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { MarketCandles } from '../../api/enhanced';
import { CHART_HEIGHT, formatDay } from './marketWords';

const tickDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const tickPrice = new Intl.NumberFormat(undefined, { maximumFractionDigits: 4 });

// recharts is large: this module is loaded on its own, after the page shows. The figures are
// in the text and the table beside each chart, which is what screen readers read; the drawing
// is hidden from them.

export function MarketChart({ data }: { data: MarketCandles }) {
  // Numbers only for drawing: the page's text shows the provider's decimal strings.
  const points = data.candles.map((c) => ({
    day: c.time,
    close: Number(c.close),
    range: [Number(c.low), Number(c.high)] as [number, number],
  }));
  return (
    <div className="chart market-chart" aria-hidden="true" data-testid={`market-chart-${data.symbol}`}>
      <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
        <ComposedChart accessibilityLayer={false} data={points} margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
          <CartesianGrid stroke="#d0d7e1" strokeDasharray="3 3" />
          <XAxis dataKey="day" tickFormatter={(day: string) => tickDay.format(new Date(`${day}T00:00:00Z`))} tick={{ fontSize: 12 }} minTickGap={32} />
          <YAxis domain={['auto', 'auto']} tickFormatter={(v: number) => tickPrice.format(v)} tick={{ fontSize: 12 }} width={72} />
          <Tooltip labelFormatter={(label) => formatDay(String(label))} />
          {data.referenceRate ? null : (
            <Area dataKey="range" name="Low–high" stroke="none" fill="#9ec5ee" fillOpacity={0.5} isAnimationActive={false} />
          )}
          <Line
            type="linear"
            dataKey="close"
            name={data.referenceRate ? 'Reference rate' : 'Close'}
            stroke="#0a58a8"
            strokeWidth={2}
            dot={false}
            isAnimationActive={false}
          />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
