import { Area, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { MarketCandles } from '../../api/enhanced';
import { useLocale, useTranslation } from '../../i18n';
import { CHART_HEIGHT, formatDay } from './marketWords';
import { dateFormat, numberFormat } from '../../components/format';

// recharts is large: this module is loaded on its own, after the page shows. The figures are
// in the text and the table beside each chart, which is what screen readers read; the drawing
// is hidden from them.

export function MarketChart({ data }: { data: MarketCandles }) {
  const { t } = useTranslation('market');
  const locale = useLocale();
  const tickDay = dateFormat({ month: 'short', day: 'numeric', timeZone: 'UTC' }, locale);
  const tickPrice = numberFormat({ maximumFractionDigits: 4 }, locale);
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
          <Tooltip labelFormatter={(label) => formatDay(String(label), locale)} />
          {data.referenceRate ? null : (
            <Area dataKey="range" name={t('chart.range')} stroke="none" fill="#9ec5ee" fillOpacity={0.5} isAnimationActive={false} />
          )}
          <Line
            type="linear"
            dataKey="close"
            name={data.referenceRate ? t('table.reference') : t('table.close')}
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
