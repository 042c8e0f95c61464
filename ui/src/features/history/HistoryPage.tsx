import { Fragment, useId, useState, type FormEvent } from 'react';
import {
  useGetTransactionHistoryQuery,
  useLazyGetStatementQuery,
  type HistoryItem,
  type HistoryType,
} from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { Amount } from '../../components/Amount';
import { Dialog } from '../../components/Dialog';
import { formatDateTime } from '../../components/format';
import { LoadError, QueryState } from '../../components/QueryState';
import { Spinner } from '../../components/Spinner';
import { useToast } from '../../components/toast/useToast';
import { detailLabel, detailValue, HISTORY_TYPES, statementFileName, summary, typeInfo, utcDay } from '../../components/historyWords';
import { Effect, StatusBadge } from '../../components/MoneyStatus';
import { useLiveRefresh } from '../../components/useLiveRefresh';

export const PAGE_SIZE = 20;

interface Filter {
  type?: HistoryType;
  from?: string;
  to?: string;
}

function HistoryCard({ item, onOpen }: { item: HistoryItem; onOpen: (item: HistoryItem) => void }) {
  const info = typeInfo(item.type);
  const line = summary(item);
  return (
    <li className={`history-card history-card--${item.type.toLowerCase()}`} data-testid="history-card">
      <span className="history-card__icon" aria-hidden="true">
        {info.icon}
      </span>
      <div className="history-card__main">
        <p className="history-card__title">
          <span className="history-card__type">{info.label}</span> {item.title} <StatusBadge status={item.status} />
        </p>
        {line ? <p className="history-card__summary">{line}</p> : null}
        <p className="history-card__meta">
          <time dateTime={item.date}>{formatDateTime(item.date)}</time>
          {item.reference ? <> · {item.reference}</> : null}
        </p>
      </div>
      <div className="history-card__figures">
        <Effect amount={item.effect} />
        <span className="history-card__balance">
          Balance <Amount amount={item.balanceAfter} />
        </span>
        <button type="button" className="button button--secondary button--small" onClick={() => onOpen(item)}>
          Details<span className="visually-hidden"> of {item.title}, {formatDateTime(item.date)}</span>
        </button>
      </div>
    </li>
  );
}

// One page of items, then the next page once asked for. The next page's cursor is taken from this
// page's current answer, so when a new item arrives and this page is fetched again, the pages
// after it move along with it and no item falls between two pages.
function Chunk(props: { filter: Filter; cursor?: string; index: number; pages: number; onMore: () => void; onOpen: (item: HistoryItem) => void }) {
  const { filter, cursor, index, pages, onMore, onOpen } = props;
  const query = useGetTransactionHistoryQuery({ ...filter, cursor, limit: PAGE_SIZE });
  const body = (data: { items: HistoryItem[]; nextCursor?: string }) => (
    <>
      <ol className="history-list" aria-label={index === 0 ? 'Transactions, newest first' : `More transactions, page ${index + 1}`}>
        {data.items.map((item) => (
          <HistoryCard key={item._id} item={item} onOpen={onOpen} />
        ))}
      </ol>
      {data.nextCursor ? (
        index + 1 < pages ? (
          <Chunk {...props} cursor={data.nextCursor} index={index + 1} />
        ) : (
          <button type="button" className="button button--secondary history-more" onClick={onMore}>
            Load more
          </button>
        )
      ) : null}
    </>
  );
  if (index === 0) {
    return (
      <QueryState
        query={query}
        loading="Loading your transactions…"
        failed="Your transactions could not be loaded"
        empty={{ when: (d) => d.items.length === 0, message: 'No transactions match these filters yet.' }}
      >
        {body}
      </QueryState>
    );
  }
  if (query.data) return body(query.data);
  if (query.isError) {
    return <LoadError title="More transactions could not be loaded" message={errorMessage(query.error, 'Please try again.')} onRetry={() => void query.refetch()} />;
  }
  return <Spinner label="Loading more transactions…" />;
}

function DetailsDialog({ item, onClose }: { item: HistoryItem; onClose: () => void }) {
  const details = Object.entries(item.details ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <Dialog
      title={item.title}
      onClose={onClose}
      actions={
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      }
    >
      <dl className="details-list" data-testid="history-details">
        <dt>Type</dt>
        <dd>{typeInfo(item.type).label}</dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={item.status} />
        </dd>
        <dt>Date</dt>
        <dd>
          <time dateTime={item.date}>{formatDateTime(item.date)}</time>
        </dd>
        <dt>Reference</dt>
        <dd className="details-list__code">{item.reference || '—'}</dd>
        <dt>Amount</dt>
        <dd>
          <Amount amount={item.amount} />
        </dd>
        <dt>Fee</dt>
        <dd>
          <Amount amount={item.fee} />
        </dd>
        <dt>Effect on your available balance</dt>
        <dd>
          <Effect amount={item.effect} />
        </dd>
        <dt>Available balance after</dt>
        <dd>
          <Amount amount={item.balanceAfter} />
        </dd>
        {details.map(([key, value]) => (
          <Fragment key={key}>
            <dt>{detailLabel(key)}</dt>
            <dd className="details-list__code">{detailValue(key, value)}</dd>
          </Fragment>
        ))}
        <dt>Event ID</dt>
        <dd className="details-list__code">{item._id}</dd>
      </dl>
    </Dialog>
  );
}

function firstOfMonth(today: Date) {
  return utcDay(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1)));
}

// The statement of a chosen period, saved as a CSV file.
function StatementForm() {
  const today = new Date();
  const [from, setFrom] = useState(firstOfMonth(today));
  const [to, setTo] = useState(utcDay(today));
  const [fetchStatement, { isFetching }] = useLazyGetStatementQuery();
  const toast = useToast();
  const [problem, setProblem] = useState('');
  const fromId = useId();
  const toId = useId();
  const problemId = useId();
  const download = async (event: FormEvent) => {
    event.preventDefault();
    if (isFetching) return;
    if (from && to && from > to) {
      setProblem('The start date must be on or before the end date.');
      return;
    }
    setProblem('');
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
      toast.error(errorMessage(error, 'The statement could not be downloaded. Please try again.'));
    }
  };
  return (
    <form className="card history-statement" onSubmit={(e) => void download(e)} aria-labelledby="statement-title" noValidate>
      <h2 id="statement-title" className="panel__title">
        Statement
      </h2>
      <p>Every transaction of a period with the opening and closing balance, as a spreadsheet file. Dates are in UTC.</p>
      <div className="history-filters">
        <div className="field">
          <label className="field__label" htmlFor={fromId}>
            Statement from
          </label>
          <input id={fromId} className="field__input" type="date" value={from} max={to || undefined} onChange={(e) => setFrom(e.target.value)} aria-describedby={problem ? problemId : undefined} />
        </div>
        <div className="field">
          <label className="field__label" htmlFor={toId}>
            Statement to
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
        {isFetching ? 'Preparing…' : 'Download statement (CSV)'}
      </button>
    </form>
  );
}

export function HistoryPage() {
  useLiveRefresh();
  const [filter, setFilter] = useState<Filter>({});
  const [pages, setPages] = useState(1);
  const [open, setOpen] = useState<HistoryItem | null>(null);
  const typeId = useId();
  const fromId = useId();
  const toId = useId();
  const change = (next: Filter) => {
    setFilter(next);
    setPages(1);
  };
  const reversed = !!filter.from && !!filter.to && filter.from > filter.to;
  return (
    <section className="page container" aria-labelledby="history-title">
      <p className="eyebrow">Your money</p>
      <h1 id="history-title">Transaction History</h1>
      <form className="history-filters" aria-label="Filter transactions" onSubmit={(e) => e.preventDefault()}>
        <div className="field">
          <label className="field__label" htmlFor={typeId}>
            Type
          </label>
          <select
            id={typeId}
            className="field__input"
            value={filter.type ?? ''}
            onChange={(e) => change({ ...filter, type: (e.target.value || undefined) as HistoryType | undefined })}
          >
            <option value="">All types</option>
            {HISTORY_TYPES.map((t) => (
              <option key={t.type} value={t.type}>
                {t.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label className="field__label" htmlFor={fromId}>
            From
          </label>
          <input id={fromId} className="field__input" type="date" value={filter.from ?? ''} onChange={(e) => change({ ...filter, from: e.target.value || undefined })} />
        </div>
        <div className="field">
          <label className="field__label" htmlFor={toId}>
            To
          </label>
          <input id={toId} className="field__input" type="date" value={filter.to ?? ''} onChange={(e) => change({ ...filter, to: e.target.value || undefined })} />
        </div>
      </form>
      {reversed ? (
        <p className="empty" role="alert">
          The start date must be on or before the end date.
        </p>
      ) : (
        <Chunk filter={filter} index={0} pages={pages} onMore={() => setPages((n) => n + 1)} onOpen={setOpen} />
      )}
      <StatementForm />
      {open ? <DetailsDialog item={open} onClose={() => setOpen(null)} /> : null}
    </section>
  );
}
