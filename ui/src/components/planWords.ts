import { currentLocale, numberFormat } from './format';
import { NO_AMOUNT } from './money';

// Rates arrive as decimal strings ("0.0040" for the term, "4.87" percent a year) and never become
// floats: a float would turn 0.0040 × 100 into 0.39999999999999997.

const RATE = /^(\d+)(?:\.(\d+))?$/;

// Percentages in the reader's locale, formatted from the decimal string itself (Intl reads a
// string as an exact decimal): at least two decimals, and every digit the server sent.
// Twenty decimals is as many as every browser's Intl allows, far more than a rate ever has.
const MAX_DIGITS = 20;

function percentFormat(locale: string, style: 'percent' | 'unit', digits: number) {
  const unit = style === 'unit' ? { unit: 'percent' } : {};
  const minimumFractionDigits = Math.min(digits, MAX_DIGITS);
  return numberFormat({ style, ...unit, minimumFractionDigits, maximumFractionDigits: MAX_DIGITS }, locale);
}

// A rate for the term as a percentage: "0.0040" → "0.40%", "0.00125" → "0.125%", "0.039" →
// "3.90%" (in German "3,90 %"); unreadable → "—".
export function termRatePercent(rate: string | null | undefined, locale = currentLocale()): string {
  const text = (rate ?? '').trim();
  if (!RATE.test(text)) return NO_AMOUNT;
  return percentFormat(locale, 'percent', 2).format(text as Intl.StringNumericLiteral);
}

// An annual rate the server already gave in percent, with the digits it sent: "4.87" → "4.87%"
// (in German "4,87 %"); unreadable → "—".
export function aprPercent(apr: string | null | undefined, locale = currentLocale()): string {
  const match = RATE.exec((apr ?? '').trim());
  if (!match) return NO_AMOUNT;
  return percentFormat(locale, 'unit', match[2]?.length ?? 0).format(match[0] as Intl.StringNumericLiteral);
}
