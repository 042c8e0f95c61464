import type { TFunction } from 'i18next';
import type { MarketCandle, MarketCandles } from '../../api/enhanced';
import { currentLocale, dateFormat, numberFormat, relativeTimeFormat } from '../../components/format';

export type MarketSymbol = MarketCandles['symbol'];

// Each chart is 400 px high, on phones and desktops alike.
export const CHART_HEIGHT = 400;

// The two markets the page shows, in order; their titles and descriptions are in the market
// namespace under the symbol. `pair` is how the page names a market in short ("Loading EUR/USD…").
export const markets: readonly { symbol: MarketSymbol; pair: string }[] = [
  { symbol: 'EURUSD', pair: 'EUR/USD' },
  { symbol: 'BTCUSDT', pair: 'BTC/USDT' },
];

// "Nov 25, 2026" (in German "25.11.2026") from "2026-11-25" or a timestamp, read as a UTC day.
export function formatDay(iso: string, locale = currentLocale()) {
  const date = new Date(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
  if (Number.isNaN(date.getTime())) return iso;
  return dateFormat({ dateStyle: 'medium', timeZone: 'UTC' }, locale).format(date);
}

const PRICE = /^(\d+)(?:\.(\d+))?$/;
// As many decimals as every browser's Intl allows, far more than a price ever has.
const MAX_DIGITS = 20;

// A price as published, grouped the way the reader's language writes numbers ("91,890.42", in
// German "91.890,42"): Intl formats the provider's decimal string itself, so every digit it sent
// is kept and none is rounded. Anything else is shown as it came.
export function formatPrice(price: string, locale = currentLocale()) {
  const match = PRICE.exec(price.trim());
  if (!match) return price;
  const digits = Math.min(match[2]?.length ?? 0, MAX_DIGITS);
  return numberFormat({ minimumFractionDigits: digits, maximumFractionDigits: MAX_DIGITS }, locale).format(match[0] as Intl.StringNumericLiteral);
}

// What a chart shows, in words: the latest close and the range of the period.
export function summary(candles: readonly MarketCandle[], referenceRate: boolean, t: TFunction<'market'>, locale = currentLocale()) {
  const day = (iso: string) => formatDay(iso, locale);
  const price = (value: string) => formatPrice(value, locale);
  const last = candles[candles.length - 1];
  const first = candles[0];
  if (!last || !first) return '';
  let low = first;
  let high = first;
  for (const c of candles) {
    if (Number(c.low) < Number(low.low)) low = c;
    if (Number(c.high) > Number(high.high)) high = c;
  }
  const latest = t(referenceRate ? 'summary.latestReference' : 'summary.latestClose', {
    day: day(last.time),
    price: price(last.close),
  });
  const range = t('summary.range', {
    first: day(first.time),
    last: day(last.time),
    low: price(low.low),
    lowDay: day(low.time),
    high: price(high.high),
    highDay: day(high.time),
  });
  return `${latest} ${range}`;
}

// When the figures on screen were fetched, for a reader who may be looking at old ones: the time
// (with the day, if it was not today) in the reader's time zone, and how long ago in words:
// "10:42 AM" and "3 hours ago"; "Nov 20, 2026, 9:00 AM" and "5 days ago".
export function asOfWords(iso: string, locale = currentLocale(), now: number = Date.now()): { at: string; ago: string } {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return { at: iso, ago: '' };
  const sameDay = new Date(now).toDateString() === date.toDateString();
  const at = dateFormat(sameDay ? { timeStyle: 'short' } : { dateStyle: 'medium', timeStyle: 'short' }, locale).format(date);
  const minutes = Math.round((date.getTime() - Math.max(now, date.getTime())) / 60_000);
  const relative = relativeTimeFormat({ numeric: 'auto' }, locale);
  let ago: string;
  if (minutes > -60) ago = relative.format(minutes, 'minute');
  else if (minutes > -24 * 60) ago = relative.format(Math.round(minutes / 60), 'hour');
  else ago = relative.format(Math.round(minutes / (24 * 60)), 'day');
  return { at, ago };
}
