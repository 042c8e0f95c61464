import { describe, expect, it } from 'vitest';
import { amountForChart, divideDecimal, formatUsd, multiplyDecimal, NO_AMOUNT } from './money';

// The reference: the amount as a BigInt count of 10^-scale dollars, divided down to cents with
// the remainder deciding the rounding, then grouped by Intl (which formats a BigInt exactly).
function reference(amount: string): string {
  const [, sign, whole, fraction = ''] = /^([+-]?)(\d+)(?:\.(\d+))?$/.exec(amount) ?? [];
  if (whole === undefined) throw new Error(`reference cannot read ${amount}`);
  const scale = Math.max(fraction.length, 2);
  const units = BigInt(whole + fraction.padEnd(scale, '0'));
  const divisor = 10n ** BigInt(scale - 2);
  let cents = units / divisor;
  const twiceRemainder = 2n * (units % divisor);
  if (twiceRemainder > divisor || (twiceRemainder === divisor && cents % 2n === 1n)) cents += 1n;
  const dollars = new Intl.NumberFormat('en-US').format(cents / 100n);
  const rest = String(cents % 100n).padStart(2, '0');
  return `${sign === '-' && cents > 0n ? '-' : ''}$${dollars}.${rest}`;
}

// A small seeded generator, so a failure names an input that reproduces.
function generator(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * (max + 1));
  const digits = (n: number) => Array.from({ length: n }, () => String(int(9))).join('');
  return () => {
    const sign = ['', '', '-', '+'][int(3)];
    const whole = digits(1 + int(25));
    // Ties are what half-even is about, so a good share of the inputs end in exactly 5.
    const fraction = int(4) === 0 ? '' : int(2) === 0 ? `${digits(int(2))}5` : digits(1 + int(8));
    return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
  };
}

describe('formatUsd', () => {
  it('writes US dollars the way the reader’s language does, rounding the same way', () => {
    expect(formatUsd('1234.5', 'de')).toBe('1.234,50\u00a0$');
    expect(formatUsd('-0.125', 'de')).toBe('-0,12\u00a0$');
    expect(formatUsd('-0.004', 'de')).toBe('0,00\u00a0$');
    expect(formatUsd('1e3', 'de')).toBe(NO_AMOUNT);
  });

  it.each([
    ['1234.5', '$1,234.50'],
    ['0', '$0.00'],
    ['0.00', '$0.00'],
    ['1250.00', '$1,250.00'],
    ['999.999', '$1,000.00'],
    ['-1234.567', '-$1,234.57'],
    ['+7.1', '$7.10'],
    ['000123.4', '$123.40'],
    [' 42.00 ', '$42.00'],
    ['12345678901234567.89', '$12,345,678,901,234,567.89'],
  ])('formats %j as %s', (amount, shown) => {
    expect(formatUsd(amount)).toBe(shown);
  });

  it.each([
    ['0.125', '$0.12'],
    ['0.135', '$0.14'],
    ['0.1250', '$0.12'],
    ['0.12500001', '$0.13'],
    ['2.675', '$2.68'],
    ['2.665', '$2.66'],
    ['1.005', '$1.00'],
    ['-0.015', '-$0.02'],
  ])('rounds %j half-even to %s instead of cutting the extra digits', (amount, shown) => {
    expect(formatUsd(amount)).toBe(shown);
  });

  it('shows an amount that rounds to zero without a minus sign', () => {
    expect(formatUsd('-0.005')).toBe('$0.00');
    expect(formatUsd('-0.00')).toBe('$0.00');
  });

  it.each([[''], ['abc'], ['1e3'], ['1,000.00'], ['$5'], ['.5'], ['5.'], ['--1'], ['NaN'], [null], [undefined]])(
    'shows the placeholder, not $0.00, for the unreadable amount %j',
    (amount) => {
      expect(formatUsd(amount)).toBe(NO_AMOUNT);
    },
  );

  it('agrees with the BigInt reference on 20,000 random decimal strings', () => {
    for (const seed of [1, 2, 3, 4]) {
      const random = generator(seed);
      for (let i = 0; i < 5000; i++) {
        const amount = random();
        expect(formatUsd(amount), amount).toBe(reference(amount));
      }
    }
  });

  it("agrees with the platform's exact decimal formatting (half-even, strings in) on the same inputs", () => {
    const intl = new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      roundingMode: 'halfEven',
      signDisplay: 'negative',
    });
    const random = generator(5);
    for (let i = 0; i < 5000; i++) {
      const amount = random();
      expect(formatUsd(amount), amount).toBe(intl.format(amount as `${number}`));
    }
  });
});

describe('amountForChart', () => {
  it('gives a number for drawing and NaN for an unreadable amount', () => {
    expect(amountForChart('1234.50')).toBe(1234.5);
    expect(amountForChart('oops')).toBeNaN();
    expect(amountForChart(undefined)).toBeNaN();
  });
});

describe('multiplyDecimal and divideDecimal', () => {
  it('convert coin to dollars exactly, rounding half-even to the cent', () => {
    expect(multiplyDecimal('0.00108827', '91890.42', 2)).toBe('100.00');
    expect(multiplyDecimal('1', '91890.42', 2)).toBe('91890.42');
    // 0.125 and 0.135: ties go to the even cent.
    expect(multiplyDecimal('0.5', '0.25', 2)).toBe('0.12');
    expect(multiplyDecimal('0.5', '0.27', 2)).toBe('0.14');
    // Beyond what a float holds exactly.
    expect(multiplyDecimal('12345678.12345678', '98765.43', 2)).toBe('1219326208504.80');
  });

  it('convert dollars to coin exactly, rounding half-even to the coin’s decimals', () => {
    expect(divideDecimal('100', '91890.42', 8)).toBe('0.00108825');
    expect(divideDecimal('91890.42', '91890.42', 8)).toBe('1.00000000');
    expect(divideDecimal('0.1', '3', 2)).toBe('0.03');
    expect(divideDecimal('0.05', '2', 2)).toBe('0.02');
    expect(divideDecimal('0.15', '2', 2)).toBe('0.08');
  });

  it('refuse what is not a plain non-negative decimal, and a zero rate', () => {
    expect(multiplyDecimal('1e3', '2', 2)).toBeNull();
    expect(multiplyDecimal('-1', '2', 2)).toBeNull();
    expect(divideDecimal('1', '0', 8)).toBeNull();
    expect(divideDecimal('', '2', 8)).toBeNull();
  });
});
