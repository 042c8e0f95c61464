import { useId, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import {
  useGetAuditBooksQuery,
  useGetAuditEventsQuery,
  useGetAuditLogQuery,
  useLazyGetAuditLogCsvQuery,
  type AuditAccount,
  type AuditBooks,
  type AuditEntry,
  type AuditEvent,
} from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { Amount } from '../../components/Amount';
import { formatDateTime, formatDecimal } from '../../components/format';
import { FormError, useFormError } from '../../components/form/FormError';
import { SelectField } from '../../components/form/SelectField';
import { TextField } from '../../components/form/TextField';
import { useLabels } from '../../components/labels';
import { QueryState } from '../../components/QueryState';
import { Tabs, type TabDef } from '../../components/Tabs';
import { useTranslation } from '../../i18n';

// The admins' audit screens (docs/auditing.md): the staff actions of the audit read model, the
// stored events exactly as the log keeps them (personal data sealed), and the books folded from
// the log at a chosen position. Everything here only reads.

const SEALED = 'pii:v1:';

// A query's answer for the arguments asked now: after new filters, a position or a stream, the
// previous answer is not shown as if it were the new one; the spinner is.
function current<T extends { currentData?: unknown; data?: unknown }>(query: T): T & { data: T['currentData'] } {
  return { ...query, data: query.currentData };
}

// ---- the audit log ----

interface LogFilters {
  actor: string;
  target: string;
  kind: string;
  from: string; // a UTC day, yyyy-mm-dd
  to: string; // a UTC day, included
}

const NO_FILTERS: LogFilters = { actor: '', target: '', kind: '', from: '', to: '' };

// The query's arguments: days become the UTC instants the server filters by (`to` is the start of
// the day after the last one included).
function logArgs(f: LogFilters) {
  const next = (day: string) => {
    const d = new Date(`${day}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() + 1);
    return d.toISOString();
  };
  return {
    actor: f.actor.trim() || undefined,
    target: f.target.trim() || undefined,
    kind: f.kind || undefined,
    from: f.from ? `${f.from}T00:00:00Z` : undefined,
    to: f.to ? next(f.to) : undefined,
  };
}

function useKindName() {
  const { t } = useTranslation('audit');
  return (kind: string, fallback: string) => t(`kinds.${kind.replace('.', '__')}` as 'kinds.account__fee_waived', { defaultValue: fallback });
}

// What an entry did, in the reader's language where the kind is known, else the server's words.
function What({ e }: { e: AuditEntry }) {
  const kindName = useKindName();
  const ref = e.reference ? ` ${e.reference}` : '';
  const fallback = e.reference && e.summary.endsWith(ref) ? e.summary.slice(0, -ref.length) : e.summary;
  return (
    <>
      {kindName(e.kind, fallback)}
      {e.reference ? <span className="audit-ref"> {e.reference}</span> : null}
    </>
  );
}

function Person({ email, id }: { email?: string; id: string }) {
  const { t } = useTranslation('audit');
  if (!email && !id) return <>{t('log.none')}</>;
  return (
    <span className="audit-person" title={id}>
      {email || id}
    </span>
  );
}

function LogTable({ entries }: { entries: AuditEntry[] }) {
  const { t } = useTranslation('audit');
  const labels = useLabels();
  const cols = {
    time: t('log.time'),
    who: t('log.who'),
    onWhom: t('log.onWhom'),
    what: t('log.what'),
    amount: t('log.amount'),
    reason: t('log.reason'),
    address: t('log.address'),
  };
  return (
    <table className="audit-table audit-table--cards" data-testid="audit-log">
      <caption className="visually-hidden">{t('log.caption')}</caption>
      <thead>
        <tr>
          {Object.values(cols).map((c) => (
            <th key={c} scope="col">
              {c}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {entries.map((e) => (
          <tr key={e.position} data-kind={e.kind}>
            <td data-label={cols.time}>{formatDateTime(e.at)}</td>
            <td data-label={cols.who}>
              <Person email={e.actorEmail} id={e.actorId} /> <span className={`badge badge--role-${e.actorRole}`}>{labels.role(e.actorRole)}</span>
              {e.impersonatorId ? <span className="muted"> {t('log.impersonating')}</span> : null}
            </td>
            <td data-label={cols.onWhom}>
              <Person email={e.targetEmail} id={e.targetUser} />
            </td>
            <td data-label={cols.what}>
              <What e={e} />
            </td>
            <td data-label={cols.amount}>{e.amount ? <Amount amount={e.amount} /> : t('log.none')}</td>
            <td data-label={cols.reason}>{e.reason || t('log.none')}</td>
            <td data-label={cols.address}>{e.clientIp || t('log.none')}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function LogTab() {
  const { t } = useTranslation('audit');
  const kindName = useKindName();
  const [draft, setDraft] = useState<LogFilters>(NO_FILTERS);
  const [applied, setApplied] = useState<LogFilters>(NO_FILTERS);
  const [cursors, setCursors] = useState<string[]>([]);
  const [problem, setProblem] = useState('');
  const [formError, setFormError] = useFormError();
  const [fetchCsv, { isFetching: preparing }] = useLazyGetAuditLogCsvQuery();
  const before = cursors[cursors.length - 1];
  const query = current(useGetAuditLogQuery({ ...logArgs(applied), before }));
  const kinds = query.data?.kinds ?? [];
  const problemId = useId();

  const apply = (event: FormEvent) => {
    event.preventDefault();
    if (draft.from && draft.to && draft.from > draft.to) {
      setProblem(t('log.reversed'));
      return;
    }
    setProblem('');
    setApplied(draft);
    setCursors([]);
  };
  const download = async () => {
    if (preparing) return;
    setFormError(null);
    try {
      const csv = await fetchCsv(logArgs(applied)).unwrap();
      const url = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = 'clearvest-audit-log.csv';
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 0);
    } catch (error) {
      setFormError(errorMessage(error, t('log.downloadFailed')));
    }
  };
  const set = (name: keyof LogFilters) => (e: { target: { value: string } }) => setDraft({ ...draft, [name]: e.target.value });

  return (
    <div className="stack">
      <form className="card audit-filters" onSubmit={apply} aria-labelledby="audit-filters-title" noValidate>
        <h2 id="audit-filters-title" className="panel__title">
          {t('log.filters')}
        </h2>
        <FormError message={formError} />
        <div className="audit-filters__grid">
          <TextField label={t('log.actor')} hint={t('log.actorHint')} value={draft.actor} onChange={set('actor')} autoCapitalize="none" spellCheck={false} maxLength={254} />
          <TextField label={t('log.target')} hint={t('log.actorHint')} value={draft.target} onChange={set('target')} autoCapitalize="none" spellCheck={false} maxLength={254} />
          <SelectField label={t('log.kind')} value={draft.kind} onChange={set('kind')}>
            <option value="">{t('log.anyKind')}</option>
            {kinds.map((k) => (
              <option key={k} value={k}>
                {kindName(k, k)}
              </option>
            ))}
          </SelectField>
          <TextField label={t('log.from')} type="date" value={draft.from} onChange={set('from')} aria-describedby={problem ? problemId : undefined} />
          <TextField label={t('log.to')} type="date" value={draft.to} onChange={set('to')} />
        </div>
        {problem ? (
          <p className="field__error" id={problemId} role="alert">
            {problem}
          </p>
        ) : null}
        <div className="audit-actions">
          <button type="submit" className="button">
            {t('log.apply')}
          </button>
          <button
            type="button"
            className="button button--secondary"
            onClick={() => {
              setDraft(NO_FILTERS);
              setApplied(NO_FILTERS);
              setCursors([]);
              setProblem('');
            }}
          >
            {t('log.reset')}
          </button>
          <button type="button" className="button button--secondary" onClick={() => void download()} aria-disabled={preparing || undefined} data-testid="audit-csv">
            {preparing ? t('log.preparing') : t('log.download')}
          </button>
        </div>
      </form>
      <QueryState query={query} loading={t('log.loading')} failed={t('log.failed')} empty={{ when: (d) => d.entries.length === 0, message: t('log.empty') }}>
        {(data) => (
          <>
            <LogTable entries={data.entries} />
            <div className="audit-actions">
              {cursors.length > 0 ? (
                <button type="button" className="button button--secondary" onClick={() => setCursors([])}>
                  {t('log.newest')}
                </button>
              ) : null}
              {data.next ? (
                <button type="button" className="button button--secondary" onClick={() => setCursors([...cursors, data.next as string])}>
                  {t('log.older')}
                </button>
              ) : null}
            </div>
          </>
        )}
      </QueryState>
    </div>
  );
}

// ---- the event browser ----

function Value({ value }: { value: string | undefined }) {
  const { t } = useTranslation('audit');
  if (!value) return <>{t('log.none')}</>;
  if (value.startsWith(SEALED)) {
    return (
      <span className="audit-sealed" title={value}>
        <span className="badge">{t('events.sealed')}</span>
      </span>
    );
  }
  return <code className="audit-code">{value}</code>;
}

function EventItem({ e }: { e: AuditEvent }) {
  const { t } = useTranslation('audit');
  const m = e.metadata;
  const meta: [string, string | undefined][] = [
    [t('events.eventId'), e.eventId],
    [t('events.schemaVersion'), String(e.schemaVersion)],
    [t('events.correlationId'), m.correlationId],
    [t('events.causationId'), m.causationId],
    [t('events.actorId'), m.actorId],
    [t('events.actorRole'), m.actorRole],
    [t('events.impersonatorId'), m.impersonatorId],
    [t('events.idempotencyKey'), m.idempotencyKey],
    [t('events.requestHash'), m.requestHash],
    [t('events.clientIp'), m.clientIp],
  ];
  return (
    <li className="audit-event" data-type={e.type}>
      <details>
        <summary>
          <span className="audit-event__type">{e.type}</span>
          <span className="muted">
            {' '}
            {e.streamId} · {t('events.version', { version: e.version })} · {t('events.position', { position: e.position })} · {formatDateTime(e.recordedAt)}
          </span>
        </summary>
        <div className="audit-event__body">
          <h3 className="audit-event__heading">{t('events.payload')}</h3>
          <pre className="audit-json">
            {JSON.stringify(e.data, null, 2)}
          </pre>
          <h3 className="audit-event__heading">{t('events.metadata')}</h3>
          <dl className="facts">
            {meta.map(([term, value]) => (
              <div key={term} className="facts__row">
                <dt>{term}</dt>
                <dd>
                  <Value value={value} />
                </dd>
              </div>
            ))}
          </dl>
        </div>
      </details>
    </li>
  );
}

function EventsTab() {
  const { t } = useTranslation('audit');
  const [stream, setStream] = useState('');
  const [type, setType] = useState('');
  const [args, setArgs] = useState({ stream: '', type: '', after: 0 });
  const query = current(useGetAuditEventsQuery({ stream: args.stream || undefined, type: args.type || undefined, after: args.after || undefined }));
  const show = (event: FormEvent) => {
    event.preventDefault();
    setArgs({ stream: stream.trim(), type: type.trim(), after: 0 });
  };
  return (
    <div className="stack">
      <form className="card audit-filters" onSubmit={show} aria-labelledby="audit-events-title" noValidate>
        <h2 id="audit-events-title" className="panel__title">
          {t('events.form')}
        </h2>
        <p className="muted">{t('events.sealedNote')}</p>
        <div className="audit-filters__grid">
          <TextField label={t('events.stream')} hint={t('events.streamHint')} value={stream} onChange={(e) => setStream(e.target.value)} autoCapitalize="none" spellCheck={false} maxLength={200} />
          <TextField label={t('events.type')} hint={t('events.typeHint')} value={type} onChange={(e) => setType(e.target.value)} autoCapitalize="none" spellCheck={false} maxLength={100} />
        </div>
        <div className="audit-actions">
          <button type="submit" className="button">
            {t('events.show')}
          </button>
        </div>
      </form>
      <QueryState query={query} loading={t('events.loading')} failed={t('events.failed')} empty={{ when: (d) => d.events.length === 0, message: t('events.empty') }}>
        {(data) => (
          <>
            <ul className="audit-events" data-testid="audit-events">
              {data.events.map((e) => (
                <EventItem key={e.position} e={e} />
              ))}
            </ul>
            {data.next ? (
              <div className="audit-actions">
                <button type="button" className="button button--secondary" onClick={() => setArgs({ ...args, after: data.next })}>
                  {t('events.next')}
                </button>
              </div>
            ) : null}
          </>
        )}
      </QueryState>
    </div>
  );
}

// ---- the books ----

function AccountName({ a }: { a: AuditAccount }) {
  const { t } = useTranslation('audit');
  if (!a.user) {
    return (
      <>
        {t('books.platform')}: <code className="audit-code">{a.account.replace(/^platform:/, '')}</code>
      </>
    );
  }
  return (
    <>
      <code className="audit-code">{a.user}</code> · {t(`books.book.${a.book}` as 'books.book.available', { defaultValue: a.book })}
    </>
  );
}

function Reconciliation({ b }: { b: AuditBooks }) {
  const { t } = useTranslation('audit');
  const r = b.reconciliation;
  const zero = Number(r.difference) === 0;
  const parts: [string, string][] = [
    [t('books.depositsReceived'), r.depositsReceived],
    [t('books.payoutsSent'), r.payoutsSent],
    [t('books.liabilities'), r.investorLiabilities],
    [t('books.equity'), r.platformEquity],
  ];
  return (
    <section className={`panel stack ${zero ? 'panel--success' : 'panel--error'}`} aria-labelledby="audit-reconciliation" data-testid="audit-reconciliation" data-reconciled={zero}>
      <h2 id="audit-reconciliation" className="panel__title">
        {t('books.reconciliation')}
      </h2>
      <p>{t('books.identity')}</p>
      <dl className="facts">
        {parts.map(([term, value]) => (
          <div key={term} className="facts__row">
            <dt>{term}</dt>
            <dd>
              <Amount amount={value} />
            </dd>
          </div>
        ))}
        <div className="facts__row audit-difference">
          <dt>{t('books.difference')}</dt>
          <dd>
            <Amount amount={r.difference} />
          </dd>
        </div>
      </dl>
      <p role="status">
        <strong>{zero ? t('books.reconciled') : t('books.notReconciled')}</strong>
      </p>
    </section>
  );
}

function TrialBalance({ b }: { b: AuditBooks }) {
  const { t } = useTranslation('audit');
  const cols = { account: t('books.account'), debit: t('books.debit'), credit: t('books.credit') };
  const show = (amount: string) => (Number(amount) === 0 ? '' : <Amount amount={amount} />);
  return (
    <section className="stack" aria-labelledby="audit-trial-balance">
      <h2 id="audit-trial-balance">{t('books.trialBalance')}</h2>
      <table className="audit-table audit-table--books" data-testid="audit-trial-balance">
        <thead>
          <tr>
            <th scope="col">{cols.account}</th>
            <th scope="col" className="num">
              {cols.debit}
            </th>
            <th scope="col" className="num">
              {cols.credit}
            </th>
          </tr>
        </thead>
        <tbody>
          {b.accounts.map((a) => (
            <tr key={a.account}>
              <th scope="row">
                <AccountName a={a} />
              </th>
              <td className="num">{show(a.debit)}</td>
              <td className="num">{show(a.credit)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">{t('books.total')}</th>
            <td className="num">
              <Amount amount={b.totalDebit} />
            </td>
            <td className="num">
              <Amount amount={b.totalCredit} />
            </td>
          </tr>
        </tfoot>
      </table>
      <p>{b.balanced ? t('books.balanced') : t('books.unbalanced', { positions: b.unbalanced.join(', ') })}</p>
      {b.wentNegative.length > 0 ? <p className="field__error">{t('books.negative', { accounts: b.wentNegative.join(', ') })}</p> : null}
    </section>
  );
}

function BooksTab() {
  const { t } = useTranslation('audit');
  const [draft, setDraft] = useState('');
  const [position, setPosition] = useState<number | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>();
  const query = current(useGetAuditBooksQuery({ position }));
  const show = (event: FormEvent) => {
    event.preventDefault();
    const text = draft.trim();
    if (text !== '' && !/^\d+$/.test(text)) {
      setProblem(t('books.invalid'));
      return;
    }
    setProblem(undefined);
    setPosition(text === '' ? undefined : Number(text));
  };
  return (
    <div className="stack">
      <form className="card audit-filters" onSubmit={show} aria-labelledby="audit-books-title" noValidate>
        <h2 id="audit-books-title" className="panel__title">
          {t('books.form')}
        </h2>
        <div className="audit-filters__grid">
          <TextField
            label={t('books.position')}
            hint={t('books.positionHint')}
            inputMode="numeric"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            error={problem ? { invalid: true, message: problem, describedBy: 'audit-position-error' } : undefined}
          />
        </div>
        <div className="audit-actions">
          <button type="submit" className="button">
            {t('books.show')}
          </button>
          <button
            type="button"
            className="button button--secondary"
            onClick={() => {
              setDraft('');
              setProblem(undefined);
              setPosition(undefined);
            }}
          >
            {t('books.latest')}
          </button>
        </div>
      </form>
      <QueryState query={query} loading={t('books.loading')} failed={t('books.failed')}>
        {(b) => (
          <>
            <p data-testid="audit-books-at">
              {t('books.at', { position: b.position, head: b.head, count: b.events })}
            </p>
            <Reconciliation b={b} />
            <p className="muted">
              {t('books.users', { available: formatDecimal(b.users.available), held: formatDecimal(b.users.held), invested: formatDecimal(b.users.invested) })}
            </p>
            <TrialBalance b={b} />
          </>
        )}
      </QueryState>
    </div>
  );
}

// ---- the page ----

export function AuditPage() {
  const { t } = useTranslation('audit');
  const [params, setParams] = useSearchParams();
  const tabs: TabDef[] = [
    { id: 'log', label: t('tabs.log') },
    { id: 'events', label: t('tabs.events') },
    { id: 'books', label: t('tabs.books') },
  ];
  const requested = params.get('tab');
  const selected = tabs.some((tab) => tab.id === requested) ? (requested as string) : 'log';
  return (
    <section className="page container audit-page" aria-labelledby="audit-title">
      <p className="eyebrow">{t('eyebrow')}</p>
      <h1 id="audit-title">{t('title')}</h1>
      <p className="muted">{t('intro')}</p>
      <Tabs label={t('tabs.label')} tabs={tabs} selected={selected} onSelect={(id) => setParams({ tab: id }, { replace: true })}>
        {selected === 'log' ? <LogTab /> : null}
        {selected === 'events' ? <EventsTab /> : null}
        {selected === 'books' ? <BooksTab /> : null}
      </Tabs>
    </section>
  );
}
