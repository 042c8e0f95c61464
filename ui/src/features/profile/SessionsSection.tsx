import { useState } from 'react';
import { useEndSessionMutation, useListSessionsQuery, useRevokeOtherSessionsMutation, type Session } from '../../api/enhanced';
import { Dialog } from '../../components/Dialog';
import { describeUserAgent, formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { useRunMutation } from '../../components/useRunMutation';

function SessionItem({ session }: { session: Session }) {
  const run = useRunMutation();
  const [endSession, { isLoading }] = useEndSessionMutation();
  const device = describeUserAgent(session.userAgent);
  const end = async () => {
    if (isLoading) return;
    await run(endSession({ id: session.id }), {
      fallback: 'The session could not be ended. Please try again.',
      success: ({ message }) => message,
    });
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
  const run = useRunMutation();
  const list = useListSessionsQuery();
  const [revokeOthers, { isLoading: isRevoking }] = useRevokeOtherSessionsMutation();
  const [confirming, setConfirming] = useState(false);
  const others = (list.data ?? []).filter((s) => !s.current).length;

  const endOthers = async () => {
    await run(revokeOthers(), {
      fallback: 'The other sessions could not be ended. Please try again.',
      success: ({ message }) => message,
    });
    setConfirming(false);
  };

  return (
    <section className="card" aria-labelledby="sessions-title">
      <h3 id="sessions-title">Where you are signed in</h3>
      <QueryState
        query={list}
        loading="Loading your sessions…"
        failed="Sessions could not be loaded"
        empty={{ when: (sessions) => sessions.length === 0, message: 'No active sessions.' }}
      >
        {(sessions) => (
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
        )}
      </QueryState>
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
