import { Link } from 'react-router';
import { useGetQueueCountsQuery, type QueueCounts } from '../../api/enhanced';
import { STAFF_DESTINATIONS } from '../../app/shell/destinations';
import { ShellIcon } from '../../app/shell/icons';
import { QueryState } from '../../components/QueryState';
import { useLocale, useTranslation } from '../../i18n';

// The top of a staff member's dashboard: every queue this server runs, with what waits in it and a
// way in. The same counts the sidebar shows (GET /api/staff/queue-counts, the same cached and
// polled query), laid out for the first thing a staff member looks at.

const QUEUES = STAFF_DESTINATIONS.filter((d): d is typeof d & { count: keyof QueueCounts } => d.count !== undefined);

function Queues({ counts }: { counts: QueueCounts }) {
  const { t } = useTranslation('dashboard');
  const shell = useTranslation('shell').t;
  const locale = useLocale();
  const number = new Intl.NumberFormat(locale);
  // A queue the server does not run is absent from its answer, and from here.
  const queues = QUEUES.flatMap((q) => {
    const count = counts[q.count];
    return count === undefined || count === null ? [] : [{ ...q, count, name: shell(`destinations.${q.id}` as 'destinations.deposits') }];
  });
  const total = queues.reduce((sum, q) => sum + q.count, 0);
  if (total === 0) {
    return (
      <div className="waiting__empty" data-testid="waiting-empty">
        <svg className="waiting__empty-icon" viewBox="0 0 48 48" aria-hidden="true" focusable="false">
          <circle cx="24" cy="24" r="21" />
          <path d="m15 24.5 6 6 12-13" />
        </svg>
        <div>
          <p className="waiting__empty-title">{t('waiting.emptyTitle')}</p>
          <p className="muted">{t('waiting.emptyBody')}</p>
        </div>
      </div>
    );
  }
  return (
    <>
      <p className="waiting__summary muted" data-testid="waiting-summary">
        {t('waiting.summary', { count: total, queues: t('waiting.queues', { count: queues.filter((q) => q.count > 0).length }) })}
      </p>
      <ul className="waiting__list">
        {queues.map((q) => (
          <li key={q.id}>
            {/* The name reads "Deposits: 3 waiting": the figure and the "Review" cue are what the
                eye scans, the hidden words what a screen reader says in their place. */}
            <Link to={q.to} className={q.count > 0 ? 'waiting__queue waiting__queue--busy' : 'waiting__queue'} data-testid={`waiting-${q.id}`}>
              <span className="waiting__icon">
                <ShellIcon name={q.icon} />
              </span>
              <span className="waiting__name">{q.name}</span>
              <span className="visually-hidden">{q.count > 0 ? t('waiting.countWords', { count: q.count }) : t('waiting.nothingWords')}</span>
              <span className="waiting__count" aria-hidden="true">
                {q.count > 0 ? number.format(q.count) : t('waiting.clear')}
              </span>
              <span className="waiting__open" aria-hidden="true">
                {q.count > 0 ? t('waiting.review') : t('waiting.open')}
                <svg viewBox="0 0 16 16" width="14" height="14" focusable="false">
                  <path d="M6 3.5 10.5 8 6 12.5" fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
                </svg>
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}

export function WaitingForYou() {
  const { t } = useTranslation('dashboard');
  // The same arguments as the shell's query (useQueueCounts), so both read one cache entry.
  const counts = useGetQueueCountsQuery({});
  return (
    <section className="card waiting" aria-labelledby="waiting-title" data-testid="waiting-for-you">
      <h2 id="waiting-title" className="waiting__title">
        {t('waiting.title')}
      </h2>
      <QueryState query={counts} loading={t('waiting.loading')} failed={t('waiting.failed')}>
        {(data) => <Queues counts={data} />}
      </QueryState>
    </section>
  );
}
