// Money arrives as a decimal string ("1250.00", "-0.005", "12345678901234567.89") and is only
// ever formatted as a string: a float would lose cents beyond 2^53 and round 0.005 the wrong way.
// Rounding to the cent is half-even, the ledger's rule (docs/product-rules.md, "Money"): a tie goes
// to the even cent, so 0.125 shows $0.12 and 0.135 shows $0.14.

// Shown instead of an amount that cannot be read, so a broken value never passes for $0.00.
export const NO_AMOUNT = '—';

// An optional sign, digits, and an optional fraction of any length. Nothing else: no exponent,
// no grouping, no currency sign, no bare ".5".
const DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?$/;

export function isDecimal(amount: string | null | undefined): amount is string {
  return DECIMAL.test((amount ?? '').trim());
}

// "1234.5" → "$1,234.50"; "-1234.567" → "-$1,234.57"; anything unreadable → NO_AMOUNT.
export function formatUsd(amount: string | null | undefined): string {
  const match = DECIMAL.exec((amount ?? '').trim());
  if (!match) return NO_AMOUNT;
  const [, sign = '', whole = '0', fraction = ''] = match;
  let cents = BigInt(whole + fraction.padEnd(2, '0').slice(0, 2));
  const dropped = fraction.slice(2);
  const first = dropped.charAt(0);
  const moreThanHalf = first > '5' || (first === '5' && /[1-9]/.test(dropped.slice(1)));
  const exactlyHalf = first === '5' && !moreThanHalf;
  if (moreThanHalf || (exactlyHalf && cents % 2n === 1n)) cents += 1n;

  const digits = cents.toString().padStart(3, '0');
  const dollars = digits.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  // A negative amount that rounds to zero is zero: "-$0.00" would suggest a debt that is not there.
  const minus = sign === '-' && cents !== 0n ? '-' : '';
  return `${minus}$${dollars}.${digits.slice(-2)}`;
}

// The one place an amount becomes a floating-point number: for drawing (a bar's height, a chart's
// axis), where a rounding error of a fraction of a pixel does not matter. Never for arithmetic or
// display. Unreadable amounts are NaN so the caller has to decide how to draw them.
export function amountForChart(amount: string | null | undefined): number {
  return isDecimal(amount) ? Number(amount.trim()) : Number.NaN;
}
