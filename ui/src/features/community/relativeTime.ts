import { dateFormat } from '../../components/format';

// English on purpose: the time goes with the activity ticker's sentences, which the server writes
// in English, and the paragraph carries lang="en" (docs/i18n.md, "What stays English").
// "just now", "5 min ago", "3 h ago", "2 days ago", then the date: short enough for a ticker,
// exact enough to be honest about when something happened.
export function relativeTime(iso: string, now: number = Date.now()) {
  const at = new Date(iso).getTime();
  if (Number.isNaN(at)) return '';
  const minutes = Math.floor(Math.max(0, now - at) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.floor(hours / 24);
  if (days < 7) return days === 1 ? '1 day ago' : `${days} days ago`;
  return dateFormat({ dateStyle: 'medium' }, 'en').format(new Date(at));
}
