import { useGetSecurityLogQuery } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { describeUserAgent, formatDateTime } from '../../components/format';
import { LoadError } from '../../components/LoadError';
import { Spinner } from '../../components/Spinner';

export function SecurityLogSection() {
  const { data: entries, isLoading, isError, error, refetch } = useGetSecurityLogQuery({});
  return (
    <section className="card" aria-labelledby="security-log-title">
      <h3 id="security-log-title">Security log</h3>
      <p className="muted">Sign-ins and changes to your account security, newest first. Something you do not recognise? Change your password.</p>
      {isLoading ? <Spinner label="Loading the security log…" /> : null}
      {isError ? (
        <LoadError title="The security log could not be loaded" message={errorMessage(error, 'Please try again.')} onRetry={() => void refetch()} />
      ) : null}
      {entries && entries.length === 0 ? <p className="empty">Nothing recorded yet.</p> : null}
      {entries && entries.length > 0 ? (
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
      ) : null}
    </section>
  );
}
