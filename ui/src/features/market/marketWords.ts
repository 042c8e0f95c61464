import type { MarketCandle, MarketCandles } from '../../api/enhanced';

export type MarketSymbol = MarketCandles['symbol'];

// Each chart is 400 px high, on phones and desktops alike.
export const CHART_HEIGHT = 400;

// The notices of a cache that is not live. The words are fixed so the page, its tests and the
// end-to-end test read the same sentence.
export const UNAVAILABLE_NOTICE = 'Market data is unavailable right now.';
export const staleNotice = (asOf: string) => `Live data unavailable — showing data as of ${formatDay(asOf)}`;

export const markets: readonly { symbol: MarketSymbol; title: string; about: string }[] = [
  {
    symbol: 'EURUSD',
    title: 'EUR/USD — euro in US dollars',
    about:
      'The European Central Bank’s euro reference rate: one rate per working day, published around 16:00 CET. ' +
      'It is a reference for information, not a price anyone trades at.',
  },
  {
    symbol: 'BTCUSDT',
    title: 'BTC/USDT — bitcoin in tether',
    about:
      'Daily prices on a crypto exchange: open, high, low and close of each UTC day. ' +
      'The last day is still trading, so its figures change until midnight UTC.',
  },
];

const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

// "25 Nov 2026" from "2026-11-25" or a timestamp, read as a UTC day.
export function formatDay(iso: string) {
  const date = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
  return Number.isNaN(date.getTime()) ? iso : dayFormat.format(date);
}

// A price as published, with thousands separators: the provider's digits, never rounded.
export function formatPrice(price: string) {
  const [whole = '', fraction] = price.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction ? `${grouped}.${fraction}` : grouped;
}

// What a chart shows, in words: the latest close and the range of the period.
export function summary(candles: readonly MarketCandle[], referenceRate: boolean) {
  const last = candles[candles.length - 1];
  const first = candles[0];
  if (!last || !first) return '';
  let low = first;
  let high = first;
  for (const c of candles) {
    if (Number(c.low) < Number(low.low)) low = c;
    if (Number(c.high) > Number(high.high)) high = c;
  }
  const latest = referenceRate
    ? `Latest reference rate (${formatDay(last.time)}): ${formatPrice(last.close)}.`
    : `Latest close (${formatDay(last.time)}): ${formatPrice(last.close)}.`;
  return (
    `${latest} From ${formatDay(first.time)} to ${formatDay(last.time)} it ranged from ` +
    `${formatPrice(low.low)} (${formatDay(low.time)}) to ${formatPrice(high.high)} (${formatDay(high.time)}).`
  );
}
