import { describe, expect, it } from 'vitest';
import { cents, plain } from './shared';

describe('amounts of the correction and fee forms', () => {
  it('reads positive amounts with at most two decimals as whole cents', () => {
    expect(cents('900')).toBe(90000n);
    expect(cents(' 12.5 ')).toBe(1250n);
    expect(cents('0.01')).toBe(1n);
    expect(cents('1.234')).toBeNull();
    expect(cents('-5')).toBeNull();
    expect(cents('abc')).toBeNull();
    expect(cents('')).toBeNull();
  });
  it('writes cents back as the server reads them', () => {
    expect(plain(90000n)).toBe('900.00');
    expect(plain(5n)).toBe('0.05');
    expect(plain(-12050n)).toBe('-120.50');
  });
});
