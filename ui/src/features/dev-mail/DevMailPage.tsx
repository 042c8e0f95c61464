import { useId, useState } from 'react';
import { useGetDevMailQuery, useGetMetaQuery, useListDevMailQuery, type DevMail, type DevMailSummary } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';

// Links in a plain-text e-mail, so a developer can follow a verification or reset link in one click.
const linksIn = (text: string) => Array.from(new Set(text.match(/https?:\/\/[^\s<>"')]+/g) ?? []));

function MailView({ id }: { id: string }) {
  const mail = useGetDevMailQuery({ id });
  return (
    <QueryState query={mail} loading="Opening the e-mail…" failed="The e-mail could not be opened">
      {(mail) => <Mail mail={mail} />}
    </QueryState>
  );
}

function Mail({ mail }: { mail: DevMail }) {
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
  const list = useListDevMailQuery(undefined, { pollingInterval: 5000 });
  const needle = filter.trim().toLowerCase();
  const matching = (mails: DevMailSummary[]) =>
    mails.filter((m) => !needle || m.to.toLowerCase().includes(needle) || m.subject.toLowerCase().includes(needle));

  return (
    <div className="mailbox">
      <div className="mailbox__list">
        <div className="field" role="search">
          <label className="field__label" htmlFor={filterId}>
            Filter by recipient or subject
          </label>
          <input id={filterId} type="search" className="field__input" value={filter} onChange={(e) => setFilter(e.target.value)} />
        </div>
        <button type="button" className="button button--small button--secondary" onClick={() => void list.refetch()}>
          {list.isFetching ? 'Refreshing…' : 'Refresh'}
        </button>
        <QueryState
          query={list}
          loading="Loading the mailbox…"
          failed="The mailbox could not be loaded"
          empty={{
            when: (mails) => matching(mails).length === 0,
            message: list.data?.length === 0 ? 'No e-mails yet.' : 'No e-mail matches.',
          }}
        >
          {(mails) => (
            <ul className="list">
              {matching(mails).map((mail) => (
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
          )}
        </QueryState>
      </div>
      <div className="mailbox__view">{openId ? <MailView id={openId} /> : <p className="empty">Choose an e-mail to read it.</p>}</div>
    </div>
  );
}

// The development mailbox: e-mails the server wrote with the file:// transport. Only a
// development server has it; elsewhere the page says so instead of showing an error.
export function DevMailPage() {
  const meta = useGetMetaQuery();
  return (
    <section className="page container" aria-labelledby="dev-mail-title">
      <p className="eyebrow">Development</p>
      <h1 id="dev-mail-title">Development Mailbox</h1>
      <QueryState query={meta} loading="Checking the server…" failed="The server could not be reached">
        {({ environment }) =>
          environment === 'development' ? (
            <>
              <p>E-mails this server would have sent, newest first. Nothing here reaches a real inbox.</p>
              <Mailbox />
            </>
          ) : (
            <p>This page exists only on development servers. Here, e-mails are really sent.</p>
          )
        }
      </QueryState>
    </section>
  );
}
