import { i18n } from '../i18n';

// The one place the UI makes its Intl formatters (docs/i18n.md, "Numbers, money and dates"):
// every date, time, number, amount and country name is written the way the language the page is
// shown in writes it (i18next's language), never the browser's. Components that format call
// useLocale() or useTranslation() so they re-render when the reader switches language, and may
// pass its locale; without one, the language shown now is used.

export const currentLocale = (): string => i18n.language || 'en';

const cache = new Map<string, unknown>();

function cached<F>(kind: string, locale: string, options: object, make: () => F): F {
  const key = `${kind}|${locale}|${JSON.stringify(options)}`;
  let format = cache.get(key) as F | undefined;
  if (!format) {
    format = make();
    cache.set(key, format);
  }
  return format;
}

export const dateFormat = (options: Intl.DateTimeFormatOptions, locale = currentLocale()) =>
  cached('date', locale, options, () => new Intl.DateTimeFormat(locale, options));

export const numberFormat = (options: Intl.NumberFormatOptions = {}, locale = currentLocale()) =>
  cached('number', locale, options, () => new Intl.NumberFormat(locale, options));

export const relativeTimeFormat = (options: Intl.RelativeTimeFormatOptions = {}, locale = currentLocale()) =>
  cached('relative', locale, options, () => new Intl.RelativeTimeFormat(locale, options));

export const regionNames = (locale = currentLocale()) => cached('region', locale, {}, () => new Intl.DisplayNames(locale, { type: 'region' }));

// A decimal string as the server sent it ("1", "0.5"), every digit kept and no float in between:
// "0.5" is "0.5" in English and "0,5" in German. Unreadable text is shown as it came.
export function formatDecimal(text: string, locale = currentLocale()) {
  const value = text.trim();
  const match = /^-?\d+(?:\.(\d+))?$/.exec(value);
  if (!match) return text;
  const digits = Math.min(match[1]?.length ?? 0, 20);
  return numberFormat({ minimumFractionDigits: digits, maximumFractionDigits: 20 }, locale).format(value as Intl.StringNumericLiteral);
}

const dateTime = (locale?: string) => dateFormat({ dateStyle: 'medium', timeStyle: 'short' }, locale);
const dateOnly = (locale?: string) => dateFormat({ dateStyle: 'medium' }, locale);
const monthOnly = (locale?: string) => dateFormat({ month: 'short', year: 'numeric' }, locale);
const timeOnly = (locale?: string) => dateFormat({ timeStyle: 'short' }, locale);

// A month as the server sends it ("2026-10"), written like the dates beside it.
export function formatMonth(month: string, locale?: string) {
  const [y, m] = month.split('-').map(Number);
  if (!y || !m) return month;
  return monthOnly(locale).format(new Date(y, m - 1, 1));
}

export function formatDateTime(iso: string | undefined, locale?: string) {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime(locale).format(date);
}

export function initials(name: string) {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '') + (parts.length > 1 ? (parts[parts.length - 1]?.[0] ?? '') : '')).toUpperCase() || '?';
}

// The date part of formatDateTime, for a day's heading or a due date. A calendar day as the
// server sends it ("2026-10-03") is built from its parts, so no time zone moves it a day.
export function formatDate(value: string | undefined, locale?: string) {
  if (!value) return '';
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (day) return dateOnly(locale).format(new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])));
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateOnly(locale).format(date);
}

// The time part of formatDateTime, for a row under its day's heading.
export function formatTime(iso: string | undefined, locale?: string) {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : timeOnly(locale).format(date);
}

// The reader's calendar day of a time (YYYY-MM-DD in their time zone), to group rows by day.
export function localDay(iso: string) {
  const d = new Date(iso);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
