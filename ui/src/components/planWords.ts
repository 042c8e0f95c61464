import { NO_AMOUNT } from './money';

// Rates arrive as decimal strings ("0.0040" for the term, "4.87" percent a year) and are only
// ever moved around as text: a float would turn 0.0040 × 100 into 0.39999999999999997.

const RATE = /^(\d+)(?:\.(\d+))?$/;

// A rate for the term as a percentage: "0.0040" → "0.40%", "0.00125" → "0.125%", "0.039" →
// "3.90%". At least two decimals, and every digit the server sent; unreadable → "—".
export function termRatePercent(rate: string | null | undefined): string {
  const match = RATE.exec((rate ?? '').trim());
  if (!match) return NO_AMOUNT;
  const [, whole = '0', fraction = ''] = match;
  const digits = whole + fraction.padEnd(2, '0');
  // Moving the point two places right: the first two fraction digits join the whole part.
  const intPart = digits.slice(0, whole.length + 2).replace(/^0+(?=\d)/, '');
  const rest = digits.slice(whole.length + 2).replace(/0+$/, '');
  return `${intPart}.${rest.padEnd(2, '0')}%`;
}

// An annual rate the server already gave in percent: "4.87" → "4.87%"; unreadable → "—".
export function aprPercent(apr: string | null | undefined): string {
  const text = (apr ?? '').trim();
  return RATE.test(text) ? `${text}%` : NO_AMOUNT;
}

export function days(n: number): string {
  return n === 1 ? '1 day' : `${n.toLocaleString('en-US')} days`;
}
