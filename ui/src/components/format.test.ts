import { afterEach, describe, expect, it } from 'vitest';
import { chooseLanguage } from '../i18n';
import { currentLocale, formatDate, formatDateTime, formatDecimal, formatMonth } from './format';
import { formatUsd } from './money';
import { termRatePercent } from './planWords';

afterEach(async () => {
  await chooseLanguage('en');
});

// The browser under test says en-US; the page's language is what counts (docs/i18n.md).
describe('dates and numbers', () => {
  it('follow the language the page is shown in, not the browser’s', async () => {
    expect(navigator.language).toMatch(/^en/);
    expect(formatDate('2026-10-03')).toBe('Oct 3, 2026');
    expect(formatMonth('2026-10')).toBe('Oct 2026');
    expect(formatUsd('1234.5')).toBe('$1,234.50');
    expect(formatDecimal('0.5')).toBe('0.5');
    await chooseLanguage('de');
    expect(currentLocale()).toBe('de');
    expect(formatDate('2026-10-03')).toBe('03.10.2026');
    expect(formatMonth('2026-10')).toBe('Okt. 2026');
    expect(formatDateTime('2026-10-03T08:30:00')).toBe('03.10.2026, 08:30');
    expect(formatUsd('1234.5')).toBe('1.234,50\u00a0$');
    expect(termRatePercent('0.0040')).toBe('0,40\u00a0%');
    expect(formatDecimal('0.5')).toBe('0,5');
    // A locale given by a component wins.
    expect(formatDate('2026-10-03', 'en')).toBe('Oct 3, 2026');
  });

  it('keep unreadable values as they came', () => {
    expect(formatDate('')).toBe('');
    expect(formatDate('not a date')).toBe('not a date');
    expect(formatDecimal('1e3')).toBe('1e3');
  });
});
