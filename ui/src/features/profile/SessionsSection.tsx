import { useState } from 'react';
import { useEndSessionMutation, useListSessionsQuery, useRevokeOtherSessionsMutation, type Session } from '../../api/enhanced';
import { errorMessage } from '../../api/errors';
import { Dialog } from '../../components/Dialog';
import { describeUserAgent, formatDateTime } from '../../components/format';
import { LoadError } from '../../components/LoadError';
import { Spinner } from '../../components/Spinner';
import { useToast } from '../../components/toast/useToast';

function SessionItem({ session }: { session: Session }) {
  const toast = useToast();
  const [endSession, { isLoading }] = useEndSessionMutation();
  const device = describeUserAgent(session.userAgent);
  const end = async () => {
    if (isLoading) return;
    try {
      const { message } = await endSession({ id: session.id }).unwrap();
      toast.success(message);
    } catch (error) {
      toast.error(errorMessage(error, 'The session could not be ended. Please try again.'));
    }
  };
  return (
    <li className="list-item">
      <div className="list-item__main">
        <p className="list-item__title">
          {device}
          {session.current ? <span className="badge badge--success">This device</span> : null}
        </p>
        <p className="list-item__meta">
          {session.ip ? `IP ${session.ip} · ` : ''}signed in {formatDateTime(session.createdAt)} · last active{' '}
          {formatDateTime(session.lastSeenAt)}
        </p>
      </div>
      {session.current ? null : (
        <button
          type="button"
          className="button button--small button--secondary"
          aria-label={`End session: ${device}, last active ${formatDateTime(session.lastSeenAt)}`}
          aria-disabled={isLoading || undefined}
          onClick={() => void end()}
        >
          {isLoading ? 'Ending…' : 'End session'}
        </button>
      )}
    </li>
  );
}

export function SessionsSection() {
  const toast = useToast();
  const { data: sessions, isLoading, isError, error, refetch } = useListSessionsQuery();
  const [revokeOthers, { isLoading: isRevoking }] = useRevokeOtherSessionsMutation();
  const [confirming, setConfirming] = useState(false);
  const others = (sessions ?? []).filter((s) => !s.current).length;

  const endOthers = async () => {
    try {
      const { message } = await revokeOthers().unwrap();
      toast.success(message);
    } catch (err) {
      toast.error(errorMessage(err, 'The other sessions could not be ended. Please try again.'));
    }
    setConfirming(false);
  };

  return (
    <section className="card" aria-labelledby="sessions-title">
      <h3 id="sessions-title">Where you are signed in</h3>
      {isLoading ? <Spinner label="Loading your sessions…" /> : null}
      {isError ? (
        <LoadError title="Sessions could not be loaded" message={errorMessage(error, 'Please try again.')} onRetry={() => void refetch()} />
      ) : null}
      {sessions && sessions.length === 0 ? <p className="empty">No active sessions.</p> : null}
      {sessions && sessions.length > 0 ? (
        <>
          <ul className="list">
            {sessions.map((session) => (
              <SessionItem key={session.id} session={session} />
            ))}
          </ul>
          {others > 0 ? (
            <button type="button" className="button button--secondary" onClick={() => setConfirming(true)}>
              End all other sessions
            </button>
          ) : (
            <p className="muted">You are not signed in anywhere else.</p>
          )}
        </>
      ) : null}
      {confirming ? (
        <Dialog
          title="End all other sessions?"
          onClose={() => setConfirming(false)}
          actions={
            <>
              <button type="button" className="button" aria-disabled={isRevoking || undefined} onClick={() => void endOthers()}>
                {isRevoking ? 'Ending…' : `End ${others} other ${others === 1 ? 'session' : 'sessions'}`}
              </button>
              <button type="button" className="button button--secondary" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </>
          }
        >
          <p>Every other browser and device will be signed out at once. This one stays signed in.</p>
        </Dialog>
      ) : null}
    </section>
  );
}
