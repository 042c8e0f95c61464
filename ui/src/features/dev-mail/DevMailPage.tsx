import { useId, useState } from 'react';
import { useGetDevMailQuery, useGetMetaQuery, useListDevMailQuery } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { formatDateTime } from '../../components/format';
import { LoadError } from '../../components/LoadError';
import { Spinner } from '../../components/Spinner';
import { usePageTitle } from '../../components/usePageTitle';

// Links in a plain-text e-mail, so a developer can follow a verification or reset link in one click.
const linksIn = (text: string) => Array.from(new Set(text.match(/https?:\/\/[^\s<>"')]+/g) ?? []));

function MailView({ id }: { id: string }) {
  const { data: mail, isLoading, isError, error, refetch } = useGetDevMailQuery({ id });
  if (isLoading) return <Spinner label="Opening the e-mail…" />;
  if (isError || !mail) {
    return <LoadError title="The e-mail could not be opened" message={errorMessage(error, 'Please try again.')} onRetry={() => void refetch()} />;
  }
  const links = linksIn(mail.text);
  return (
    <article className="card mail" aria-labelledby="mail-subject">
      <h2 id="mail-subject" className="mail__subject">
        {mail.subject}
      </h2>
      <p className="list-item__meta">
        To <span className="break-anywhere">{mail.to}</span> · {formatDateTime(mail.date)}
      </p>
      {links.length > 0 ? (
        <>
          <h3>Links</h3>
          <ul className="mail__links">
            {links.map((link) => (
              <li key={link}>
                <a className="break-anywhere" href={link}>
                  {link}
                </a>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h3>Text</h3>
      <pre className="mail__text">{mail.text}</pre>
    </article>
  );
}

function Mailbox() {
  const filterId = useId();
  const [filter, setFilter] = useState('');
  const [openId, setOpenId] = useState<string | null>(null);
  const { data: mails, isLoading, isFetching, isError, error, refetch } = useListDevMailQuery(undefined, { pollingInterval: 5000 });
  const needle = filter.trim().toLowerCase();
  const shown = (mails ?? []).filter((m) => !needle || m.to.toLowerCase().includes(needle) || m.subject.toLowerCase().includes(needle));

  return (
    <div className="mailbox">
      <div className="mailbox__list">
        <div className="field" role="search">
          <label className="field__label" htmlFor={filterId}>
            Filter by recipient or subject
          </label>
          <input id={filterId} type="search" className="field__input" value={filter} onChange={(e) => setFilter(e.target.value)} />
        </div>
        <button type="button" className="button button--small button--secondary" onClick={() => void refetch()}>
          {isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
        {isLoading ? <Spinner label="Loading the mailbox…" /> : null}
        {isError ? <LoadError title="The mailbox could not be loaded" message={errorMessage(error, 'Please try again.')} onRetry={() => void refetch()} /> : null}
        {mails && shown.length === 0 ? <p className="empty">{mails.length === 0 ? 'No e-mails yet.' : 'No e-mail matches.'}</p> : null}
        {shown.length > 0 ? (
          <ul className="list">
            {shown.map((mail) => (
              <li key={mail.id} className="list-item">
                <button type="button" className="mail-item" aria-pressed={openId === mail.id} onClick={() => setOpenId(mail.id)}>
                  <span className="list-item__title">{mail.subject}</span>
                  <span className="list-item__meta">
                    <span className="break-anywhere">{mail.to}</span> · {formatDateTime(mail.date)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      <div className="mailbox__view">{openId ? <MailView id={openId} /> : <p className="empty">Choose an e-mail to read it.</p>}</div>
    </div>
  );
}

// The development mailbox: e-mails the server wrote with the file:// transport. Only a
// development server has it; elsewhere the page says so instead of showing an error.
export function DevMailPage() {
  usePageTitle('Development Mailbox');
  const { data: meta, isLoading, isError, refetch } = useGetMetaQuery();
  return (
    <section className="page container" aria-labelledby="dev-mail-title">
      <p className="eyebrow">Development</p>
      <h1 id="dev-mail-title">Development Mailbox</h1>
      {isLoading ? <Spinner label="Checking the server…" /> : null}
      {isError ? <LoadError title="The server could not be reached" message="Please try again." onRetry={() => void refetch()} /> : null}
      {meta && meta.environment !== 'development' ? (
        <p>This page exists only on development servers. Here, e-mails are really sent.</p>
      ) : null}
      {meta?.environment === 'development' ? (
        <>
          <p>E-mails this server would have sent, newest first. Nothing here reaches a real inbox.</p>
          <Mailbox />
        </>
      ) : null}
    </section>
  );
}
