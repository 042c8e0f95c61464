import { currentLocale, numberFormat } from './format';

// Money arrives as a decimal string ("1250.00", "-0.005", "12345678901234567.89") and is only
// ever formatted from that string: a float would lose cents beyond 2^53 and round 0.005 the wrong way.
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

// US dollars in the language the page is shown in, from the decimal string as it is: given a string, Intl
// formats the exact decimal (no float in between) and rounds half-even as asked. A negative amount
// that rounds to zero shows as zero ("-$0.00" would suggest a debt that is not there).
const usdFormat = (locale: string) => numberFormat({ style: 'currency', currency: 'USD', roundingMode: 'halfEven', signDisplay: 'negative' }, locale);

// "1234.5" → "$1,234.50" (in German "1.234,50 $"); "-1234.567" → "-$1,234.57"; anything
// unreadable → NO_AMOUNT. The amount is always in US dollars; only the way it is written follows
// the locale.
export function formatUsd(amount: string | null | undefined, locale = currentLocale()): string {
  const text = (amount ?? '').trim();
  if (!DECIMAL.test(text)) return NO_AMOUNT;
  return usdFormat(locale).format(text as Intl.StringNumericLiteral);
}

// The one place an amount becomes a floating-point number: for drawing (a bar's height, a chart's
// axis), where a rounding error of a fraction of a pixel does not matter. Never for arithmetic or
// display. Unreadable amounts are NaN so the caller has to decide how to draw them.
export function amountForChart(amount: string | null | undefined): number {
  return isDecimal(amount) ? Number(amount.trim()) : Number.NaN;
}

// Exact decimal arithmetic on decimal strings, for converting between dollars and a coin at a
// market rate: the digits are scaled integers (BigInt), so no float ever touches an amount.
// Both round half-even at the scale asked, the ledger's rule. Negative or unreadable input
// gives null.
function scaled(amount: string): { n: bigint; scale: number } | null {
  const match = DECIMAL.exec(amount.trim());
  if (!match || match[1] === '-') return null;
  const fraction = match[3] ?? '';
  return { n: BigInt(match[2] + fraction), scale: fraction.length };
}

const TEN = 10n;
const pow10 = (k: number) => TEN ** BigInt(k);

// numerator / denominator rounded half-even to an integer (both positive).
function roundHalfEven(numerator: bigint, denominator: bigint): bigint {
  const q = numerator / denominator;
  const twice = (numerator % denominator) * 2n;
  if (twice > denominator || (twice === denominator && q % 2n === 1n)) return q + 1n;
  return q;
}

function plain(n: bigint, scale: number): string {
  if (scale === 0) return n.toString();
  const digits = n.toString().padStart(scale + 1, '0');
  return `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

// a × b with `scale` decimals: 0.00108827 BTC × 91890.42 = "100.00" at scale 2.
export function multiplyDecimal(a: string, b: string, scale: number): string | null {
  const x = scaled(a);
  const y = scaled(b);
  if (!x || !y) return null;
  return plain(roundHalfEven(x.n * y.n * pow10(scale), pow10(x.scale + y.scale)), scale);
}

// a ÷ b with `scale` decimals: $100 ÷ 91890.42 = "0.00108827" at scale 8. Null for b = 0.
export function divideDecimal(a: string, b: string, scale: number): string | null {
  const x = scaled(a);
  const y = scaled(b);
  if (!x || !y || y.n === 0n) return null;
  return plain(roundHalfEven(x.n * pow10(y.scale + scale), y.n * pow10(x.scale)), scale);
}

// The exact sum of decimal amounts of at most two decimals (the server's USD strings), in whole
// cents, so totals on screen never carry a float's rounding.
export function sumAmounts(amounts: readonly string[]): string {
  let cents = 0n;
  for (const a of amounts) {
    const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(a.trim());
    if (!m) continue;
    const value = BigInt(m[2]!) * 100n + BigInt((m[3] ?? '').padEnd(2, '0') || '0');
    cents += m[1] ? -value : value;
  }
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  return `${negative ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}
