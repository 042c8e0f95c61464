import { useEffect, useState } from 'react';
import { useGetPublicActivityQuery, type ActivityItem } from '../../api/community';
import { useTranslation } from '../../i18n';
import { relativeTime } from './relativeTime';
import './community.css';

// One activity stays for ROTATE_MS, then fades out over FADE_MS and the next fades in.
export const ROTATE_MS = 4000;
export const FADE_MS = 500;
// How often the ticker asks for new activity.
const REFRESH_MS = 60_000;

function prefersReducedMotion() {
  return typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

interface ActivityTickerProps {
  className?: string;
}

// Recent real activity, anonymised by the server ("An investor from Germany started a Standard
// plan"), one at a time. It pauses while hovered or focused and has a pause button, as moving
// content must (WCAG 2.2.2); with reduced motion the items change without the fade. Screen
// readers are not told of every rotation: the rotating line is not live, and a separate polite
// status announces only activity that arrives while the page is open. With nothing to show
// (no activity yet, or the server could not be reached) it renders nothing.
export function ActivityTicker({ className }: ActivityTickerProps) {
  const { t } = useTranslation('community');
  const { data } = useGetPublicActivityQuery(undefined, { pollingInterval: REFRESH_MS });
  const items = data?.activities ?? [];
  const [index, setIndex] = useState(0);
  const [fading, setFading] = useState(false);
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const [stopped, setStopped] = useState(false);
  const paused = hovered || focused || stopped;
  const count = items.length;

  useEffect(() => {
    if (paused || count < 2) return;
    let fade: ReturnType<typeof setTimeout> | undefined;
    const next = setTimeout(() => {
      if (prefersReducedMotion()) {
        setIndex((i) => (i + 1) % count);
        return;
      }
      setFading(true);
      fade = setTimeout(() => {
        setIndex((i) => (i + 1) % count);
        setFading(false);
      }, FADE_MS);
    }, ROTATE_MS);
    return () => {
      clearTimeout(next);
      if (fade) clearTimeout(fade);
      setFading(false);
    };
  }, [paused, count, index]);

  const announced = useAnnouncement(items);
  const item = items[index % Math.max(count, 1)];
  if (!item) return null;
  return (
    <section
      className={['ticker', className].filter(Boolean).join(' ')}
      aria-label={t('ticker.label')}
      data-testid="activity-ticker"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={() => setFocused(false)}
    >
      <span className="ticker__dot" aria-hidden="true" />
      {/* The server writes these sentences in English, and the time beside them reads as their
          end ("… 5 min ago"), so the line stays English as a whole and says so to screen readers. */}
      <p
        className={fading ? 'ticker__item ticker__item--out' : 'ticker__item'}
        lang="en"
        aria-live="off"
        data-testid="ticker-item"
      >
        <span className="ticker__message">{item.message}</span>{' '}
        <time className="ticker__time" dateTime={item.at}>
          {relativeTime(item.at)}
        </time>
      </p>
      {count > 1 ? (
        <button
          type="button"
          className="ticker__pause"
          aria-label={stopped ? t('ticker.resumeLabel') : t('ticker.pauseLabel')}
          onClick={() => setStopped((s) => !s)}
        >
          {stopped ? t('ticker.resume') : t('ticker.pause')}
        </button>
      ) : null}
      <p className="visually-hidden" role="status" aria-live="polite">
        {announced}
      </p>
    </section>
  );
}

// The newest activity, once it is one that arrived after the ticker first loaded: what the
// polite status announces. The first list is not announced; it is on the page to be read.
function useAnnouncement(items: ActivityItem[]) {
  const { t } = useTranslation('community');
  const [newestSeen, setNewestSeen] = useState<string | null>(null);
  const [said, setSaid] = useState('');
  const newest = items[0];
  if (newest && newest.id !== newestSeen) {
    if (newestSeen !== null) setSaid(t('ticker.announce', { message: newest.message }));
    setNewestSeen(newest.id);
  }
  return said;
}
