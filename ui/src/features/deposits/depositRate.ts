import type { MarketCandles } from '../../api/enhanced';
import { divideDecimal, isDecimal, multiplyDecimal } from '../../components/money';
import { currentLocale, relativeTimeFormat } from '../../components/format';

// The coins the market-data cache has a US-dollar rate for, and the market it is read from
// (BTC/USDT, USDT being taken at 1 USD). ETH has none: its deposits ask for both amounts.
const marketOf: Partial<Record<string, { symbol: MarketCandles['symbol']; decimals: number }>> = {
  BTC: { symbol: 'BTCUSDT', decimals: 8 },
};

export const rateMarket = (asset: string) => marketOf[asset];

export interface MarketRate {
  // US dollars for one coin, the decimal string as the provider published it.
  price: string;
  // When the rate was fetched.
  asOf: string;
}

// The latest close of the cached market, or null when there is none to trust (no data).
export function rateFrom(market: MarketCandles | undefined): MarketRate | null {
  if (!market || market.status === 'unavailable' || !market.asOf) return null;
  const last = market.candles.at(-1);
  if (!last || !isDecimal(last.close) || /^0*\.?0*$/.test(last.close)) return null;
  return { price: last.close, asOf: market.asOf };
}

export type AmountSide = 'usd' | 'coin';

// One amount typed, the other worked out at the rate with exact decimal arithmetic: dollars to
// the cent, the coin to its own precision, both rounded half-even. Null while the typed amount is
// not a number.
export function convertAmount(side: AmountSide, typed: string, price: string, decimals: number): { usd: string; coin: string } | null {
  const amount = typed.trim();
  if (!isDecimal(amount)) return null;
  if (side === 'usd') {
    const coin = divideDecimal(amount, price, decimals);
    return coin === null ? null : { usd: amount, coin };
  }
  const usd = multiplyDecimal(amount, price, 2);
  return usd === null ? null : { usd, coin: amount };
}

// "2 minutes ago" in the reader's language.
export function formatAgo(iso: string, now: number, locale = currentLocale()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  const format = relativeTimeFormat({ numeric: 'auto' }, locale);
  if (seconds < 60) return format.format(0, 'minute');
  if (seconds < 3600) return format.format(-Math.floor(seconds / 60), 'minute');
  if (seconds < 86400) return format.format(-Math.floor(seconds / 3600), 'hour');
  return format.format(-Math.floor(seconds / 86400), 'day');
}
