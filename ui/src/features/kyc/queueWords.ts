// How long a submission has waited, counted to the server's clock (`asOf`) so a wrong clock on
// the reviewer's computer cannot skew it: "waiting 3 h 12 min".
export function waitingTime(submittedAt: string, asOf: string): string {
  const ms = Date.parse(asOf) - Date.parse(submittedAt);
  if (!Number.isFinite(ms)) return '';
  const minutes = Math.max(0, Math.floor(ms / 60_000));
  if (minutes < 1) return 'waiting less than a minute';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const mins = minutes % 60;
  if (days > 0) return `waiting ${days} d ${hours} h`;
  if (hours > 0) return `waiting ${hours} h ${mins} min`;
  return `waiting ${mins} min`;
}

// "United Kingdom" for "GB", in the reader's language.
export function countryName(code: string) {
  if (!code) return 'Country not given';
  try {
    return new Intl.DisplayNames(undefined, { type: 'region' }).of(code) ?? code;
  } catch {
    return code;
  }
}
