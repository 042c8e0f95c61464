import { useCallback, useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useGetTransactionHistoryQuery, useLazyGetStatementQuery, type Movement, type MovementPage } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { Amount } from '../../components/Amount';
import { formatDate, formatTime, localDay } from '../../components/format';
import { PagedChunks, type FocusTarget, type PageQuery } from '../../components/PagedChunks';
import { QueryState } from '../../components/QueryState';
import { FormError, useFormError } from '../../components/form/FormError';
import { useLiveRefresh } from '../../components/useLiveRefresh';
import { Trans, useTranslation } from '../../i18n';
import {
  highlightedKey,
  incoming,
  KIND_ICON,
  movementLabel,
  movementLink,
  movementStatus,
  rowKey,
  statementFileName,
  utcDay,
} from './movementWords';

export const PAGE_SIZE = 20;

// The endpoint's hook as PagedChunks calls it.
const useHistoryPage: PageQuery<MovementPage> = (arg, options) => useGetTransactionHistoryQuery(arg, options);

// The line under a row's label: what the movement paid, when it matures, or why it was refused.
function MovementDetail({ m }: { m: Movement }) {
  const { t } = useTranslation('history');
  const d = m.details;
  if (m.kind === 'return' && d.principal) {
    return d.closedEarly ? (
      <Trans t={t} i18nKey="detail.payoutEarly" components={{ principal: <Amount amount={d.principal} />, forfeited: <Amount amount={d.forfeited ?? '0'} /> }} />
    ) : (
      <Trans t={t} i18nKey="detail.payout" components={{ principal: <Amount amount={d.principal} />, return: <Amount amount={d.return ?? '0'} /> }} />
    );
  }
  if (d.reason) return <>{t('detail.reason', { reason: d.reason })}</>;
  if (m.kind === 'investment' && m.status === 'active' && d.endDate) return <>{t('detail.maturesOn', { date: formatDate(d.endDate) })}</>;
  if (d.reinvestedFrom) return <>{t('detail.reinvestedFrom', { reference: d.reinvestedFrom })}</>;
  return null;
}

function MovementRow(props: { m: Movement; focus?: FocusTarget; highlighted: boolean; pending?: boolean }) {
  const { m, focus, highlighted, pending } = props;
  const { t } = useTranslation('history');
  const label = movementLabel(m, t);
  const status = movementStatus(m, t);
  const link = movementLink(m);
  const detail = <MovementDetail m={m} />;
  const when = pending ? m.createdAt : (m.settledAt ?? m.updatedAt);
  const into = incoming(m);
  const row = useRef<HTMLLIElement | null>(null);
  // Stable, so React does not detach and attach it again on every render.
  const rowRef = useCallback(
    (element: HTMLLIElement | null) => {
      row.current = element;
      if (!link) focus?.(element);
    },
    [link, focus],
  );
  useEffect(() => {
    // The row a link pointed at (?ref=…) comes into view and takes the focus, once.
    if (!highlighted || !row.current) return;
    row.current.scrollIntoView?.({ block: 'center' });
    (row.current.querySelector<HTMLElement>('a') ?? row.current).focus({ preventScroll: true });
  }, [highlighted]);
  const content = (
    <>
      <span className={`movement__icon movement__icon--${m.kind}`} aria-hidden="true">
        {KIND_ICON[m.kind]}
      </span>
      <span className="movement__main">
        <span className="movement__label">{label}</span>
        <span className="movement__meta">
          <span className="visually-hidden">{t('row.reference')} </span>
          <span className="movement__ref">{m.reference}</span>
          {' · '}
          <time dateTime={when}>{pending ? `${formatDate(when)}, ${formatTime(when)}` : formatTime(when)}</time>
        </span>
        {detail.type && <span className="movement__detail">{detail}</span>}
      </span>
      <span className="movement__figures">
        <span
          className={`movement__amount${into ? ' movement__amount--in' : ''}${m.status === 'rejected' ? ' movement__amount--void' : ''}`}
          data-testid="movement-amount"
        >
          {into ? '+' : ''}
          <Amount amount={m.amount} />
        </span>
        <span className={`badge badge--${status.tone}`}>{status.text}</span>
      </span>
    </>
  );
  return (
    <li
      className={`movement${highlighted ? ' movement--highlighted' : ''}`}
      data-testid="movement"
      data-reference={m.reference}
      data-kind={m.kind}
      aria-current={highlighted ? 'true' : undefined}
      ref={rowRef}
      tabIndex={!link && (focus || highlighted) ? -1 : undefined}
    >
      {link ? (
        <Link to={link} className="movement__body" ref={focus}>
          {content}
        </Link>
      ) : (
        <div className="movement__body">{content}</div>
      )}
    </li>
  );
}

// Settled movements by the day they settled, newest first. A day that goes on from the page
// before gets no second heading.
function SettledPage(props: { data: MovementPage; index: number; focus: FocusTarget; previous?: MovementPage; highlight?: string; isFetching: boolean }) {
  const { data, index, focus, previous, highlight, isFetching } = props;
  const { t } = useTranslation('history');
  const lastBefore = previous?.items.at(-1);
  const groups: { day: string; at: string; items: Movement[] }[] = [];
  for (const m of data.items) {
    const at = m.settledAt ?? m.updatedAt;
    const day = localDay(at);
    const group = groups.at(-1);
    if (group && group.day === day) group.items.push(m);
    else groups.push({ day, at, items: [m] });
  }
  if (index === 0 && data.items.length === 0) return <p className="muted">{t('settled.none')}</p>;
  return (
    <div aria-busy={isFetching || undefined}>
      {groups.map((g, gi) => {
        const continued = gi === 0 && lastBefore !== undefined && localDay(lastBefore.settledAt ?? lastBefore.updatedAt) === g.day;
        const headingId = `day-${index}-${gi}`;
        return (
          <section key={g.day} className="statement-day" aria-labelledby={continued ? undefined : headingId} aria-label={continued ? formatDate(g.at) : undefined}>
            {continued ? null : (
              <h3 id={headingId} className="statement-day__title">
                {formatDate(g.at)}
              </h3>
            )}
            <ul className="movement-list">
              {g.items.map((m, i) => (
                <MovementRow key={rowKey(m)} m={m} focus={gi === 0 && i === 0 && index > 0 ? focus : undefined} highlighted={highlight === rowKey(m)} />
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}

function EmptyHistory() {
  const { t } = useTranslation('history');
  return (
    <div className="empty-state" data-testid="history-empty">
      <h2 className="empty-state__title">{t('empty.title')}</h2>
      <p>{t('empty.text')}</p>
      <Link to="/deposit-payment" className="button">
        {t('empty.action')}
      </Link>
    </div>
  );
}

function firstOfMonth(today: Date) {
  return utcDay(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1)));
}

// The statement of a chosen period, saved as a CSV file.
function StatementForm() {
  const { t } = useTranslation('history');
  const today = new Date();
  const [from, setFrom] = useState(firstOfMonth(today));
  const [to, setTo] = useState(utcDay(today));
  const [fetchStatement, { isFetching }] = useLazyGetStatementQuery();
  const [problem, setProblem] = useState('');
  const [formError, setFormError] = useFormError();
  const fromId = useId();
  const toId = useId();
  const problemId = useId();
  const download = async (event: FormEvent) => {
    event.preventDefault();
    if (isFetching) return;
    if (from && to && from > to) {
      setProblem(t('statement.reversed'));
      return;
    }
    setProblem('');
    setFormError(null);
    try {
      const csv = await fetchStatement({ from: from || undefined, to: to || undefined }).unwrap();
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = statementFileName(from, to || utcDay(new Date()));
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 0);
    } catch (error) {
      setFormError(errorMessage(error, t('statement.failed')));
    }
  };
  return (
    <form className="card history-statement" onSubmit={(e) => void download(e)} aria-labelledby="statement-title" noValidate>
      <h2 id="statement-title" className="panel__title">
        {t('statement.title')}
      </h2>
      <p>{t('statement.text')}</p>
      <FormError message={formError} />
      <div className="history-filters">
        <div className="field">
          <label className="field__label" htmlFor={fromId}>
            {t('statement.from')}
          </label>
          <input id={fromId} className="field__input" type="date" value={from} max={to || undefined} onChange={(e) => setFrom(e.target.value)} aria-describedby={problem ? problemId : undefined} />
        </div>
        <div className="field">
          <label className="field__label" htmlFor={toId}>
            {t('statement.to')}
          </label>
          <input id={toId} className="field__input" type="date" value={to} min={from || undefined} onChange={(e) => setTo(e.target.value)} />
        </div>
      </div>
      {problem ? (
        <p className="field__error" id={problemId} role="alert">
          {problem}
        </p>
      ) : null}
      <button type="submit" className="button" aria-disabled={isFetching || undefined}>
        {isFetching ? t('statement.preparing') : t('statement.download')}
      </button>
    </form>
  );
}

export function HistoryPage() {
  useLiveRefresh();
  const { t } = useTranslation('history');
  const [params] = useSearchParams();
  const ref = params.get('ref');
  return (
    <section className="page container history-page" aria-labelledby="history-title">
      <p className="eyebrow">{t('eyebrow')}</p>
      <h1 id="history-title">{t('title')}</h1>
      <p className="muted">{t('intro')}</p>
      <PagedChunks
        usePage={useHistoryPage}
        limit={PAGE_SIZE}
        moreClassName="history-more"
        words={{ loadMore: t('more.load'), loadingMore: t('more.loading'), moreFailed: t('more.failed'), tryAgain: t('tryAgain') }}
        first={(query, content) => (
          <QueryState query={query} loading={t('loading')} failed={t('failed')}>
            {(data) => (data.pending.length === 0 && data.items.length === 0 ? <EmptyHistory /> : content(data))}
          </QueryState>
        )}
        renderPage={({ data, index, focus, previous, isFetching }) => {
          // A link to a movement (?ref=INV-…) points at a recent one: it is looked for on the
          // first page.
          const highlight = index === 0 ? highlightedKey([...data.pending, ...data.items], ref) : undefined;
          return (
            <>
              {index === 0 && data.pending.length > 0 ? (
                <section className="statement-section statement-section--pending" aria-labelledby="pending-title" data-testid="history-pending">
                  <h2 id="pending-title" className="statement-section__title">
                    {t('pending.title')}
                  </h2>
                  <p className="muted statement-section__note">{t('pending.text')}</p>
                  <ul className="movement-list">
                    {data.pending.map((m) => (
                      <MovementRow key={rowKey(m)} m={m} pending highlighted={highlight === rowKey(m)} />
                    ))}
                  </ul>
                </section>
              ) : null}
              {index === 0 ? (
                <h2 id="settled-title" className="statement-section__title">
                  {t('settled.title')}
                </h2>
              ) : null}
              <SettledPage data={data} index={index} focus={focus} previous={previous} highlight={highlight} isFetching={isFetching} />
            </>
          );
        }}
      />
      <StatementForm />
    </section>
  );
}
