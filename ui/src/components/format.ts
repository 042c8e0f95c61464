const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const monthOnly = new Intl.DateTimeFormat(undefined, { month: 'short', year: 'numeric' });

// A month as the server sends it ("2026-10"), written like the dates beside it.
export function formatMonth(month: string) {
  const [y, m] = month.split('-').map(Number);
  if (!y || !m) return month;
  return monthOnly.format(new Date(y, m - 1, 1));
}

export function formatDateTime(iso: string | undefined) {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

// "Firefox on Linux": enough for a person to recognise their own devices.
export function describeUserAgent(ua: string) {
  if (!ua) return 'Unknown device';
  const browser =
    (/Edg\//.test(ua) && 'Edge') ||
    (/OPR\//.test(ua) && 'Opera') ||
    (/Firefox\//.test(ua) && 'Firefox') ||
    (/Chrom(e|ium)\//.test(ua) && 'Chrome') ||
    (/Safari\//.test(ua) && 'Safari') ||
    (/curl|Go-http-client|node|okhttp|python/i.test(ua) && 'An API client') ||
    'A browser';
  const os =
    (/Android/.test(ua) && 'Android') ||
    (/iPhone|iPad|iPod/.test(ua) && 'iOS') ||
    (/Windows/.test(ua) && 'Windows') ||
    (/Mac OS X|Macintosh/.test(ua) && 'macOS') ||
    (/CrOS/.test(ua) && 'ChromeOS') ||
    (/Linux/.test(ua) && 'Linux') ||
    '';
  return os ? `${browser} on ${os}` : browser;
}

export function initials(name: string) {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '') + (parts.length > 1 ? (parts[parts.length - 1]?.[0] ?? '') : '')).toUpperCase() || '?';
}

// How long a request has waited, from the server's count of seconds.
export function waitedFor(seconds: number) {
  const minutes = Math.max(0, Math.floor(seconds / 60));
  if (minutes < 1) return 'waiting less than a minute';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  if (days > 0) return `waiting ${days} d ${hours} h`;
  if (hours > 0) return `waiting ${hours} h ${minutes % 60} min`;
  return `waiting ${minutes} min`;
}

const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

// The date part of formatDateTime, for a day's heading or a due date. A calendar day as the
// server sends it ("2026-10-03") is built from its parts, so no time zone moves it a day.
export function formatDate(value: string | undefined) {
  if (!value) return '';
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (day) return dateOnly.format(new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])));
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateOnly.format(date);
}

// The time part of formatDateTime, for a row under its day's heading.
export function formatTime(iso: string | undefined) {
  if (!iso) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : timeOnly.format(date);
}

// The reader's calendar day of a time (YYYY-MM-DD in their time zone), to group rows by day.
export function localDay(iso: string) {
  const d = new Date(iso);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}
