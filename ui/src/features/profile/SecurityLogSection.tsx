import { useGetSecurityLogQuery } from '../../api/enhanced';
import { describeUserAgent, formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';

export function SecurityLogSection() {
  const log = useGetSecurityLogQuery({});
  return (
    <section className="card" aria-labelledby="security-log-title">
      <h3 id="security-log-title">Security log</h3>
      <p className="muted">Sign-ins and changes to your account security, newest first. Something you do not recognise? Change your password.</p>
      <QueryState
        query={log}
        loading="Loading the security log…"
        failed="The security log could not be loaded"
        empty={{ when: (entries) => entries.length === 0, message: 'Nothing recorded yet.' }}
      >
        {(entries) => (
          <ol className="list">
            {entries.map((entry) => (
              <li key={entry.id} className="list-item">
                <div className="list-item__main">
                  <p className="list-item__title">{entry.description}</p>
                  <p className="list-item__meta">
                    <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                    {entry.ip ? ` · IP ${entry.ip}` : ''}
                    {entry.userAgent ? ` · ${describeUserAgent(entry.userAgent)}` : ''}
                  </p>
                </div>
              </li>
            ))}
          </ol>
        )}
      </QueryState>
    </section>
  );
}
