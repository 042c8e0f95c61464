import { useState } from 'react';
import { useEndSessionMutation, useListSessionsQuery, useRevokeOtherSessionsMutation, type Session } from '../../api/enhanced';
import { Dialog } from '../../components/Dialog';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { useRunMutation } from '../../components/useRunMutation';
import { FormError, useFormError } from '../../components/form/FormError';
import { useLabels } from '../../components/labels';
import { useTranslation } from '../../i18n';
import { useDeviceName } from './deviceWords';

// A refusal goes to `formError`, the section's one error above the list.
function SessionItem({ session, formError }: { session: Session; formError: (message: string | null) => void }) {
  const { t } = useTranslation('member');
  const labels = useLabels();
  const run = useRunMutation();
  const [endSession, { isLoading }] = useEndSessionMutation();
  const deviceName = useDeviceName();
  const device = deviceName(session.userAgent);
  const end = async () => {
    if (isLoading) return;
    await run(endSession({ id: session.id }), {
      fallback: t('sessions.endFailed'),
      success: ({ message }) => message,
      formError,
    });
  };
  return (
    <li className="list-item">
      <div className="list-item__main">
        <p className="list-item__title">
          {device}
          {session.current ? <span className="badge badge--success">{labels.session('current')}</span> : null}
        </p>
        <p className="list-item__meta">
          {t(session.ip ? 'sessions.metaIp' : 'sessions.meta', {
            ip: session.ip,
            signedIn: formatDateTime(session.createdAt),
            lastActive: formatDateTime(session.lastSeenAt),
          })}
        </p>
      </div>
      {session.current ? null : (
        <button
          type="button"
          className="button button--small button--secondary"
          aria-label={t('sessions.endLabel', { device, lastActive: formatDateTime(session.lastSeenAt) })}
          aria-disabled={isLoading || undefined}
          onClick={() => void end()}
        >
          {isLoading ? t('sessions.ending') : t('sessions.end')}
        </button>
      )}
    </li>
  );
}

export function SessionsSection() {
  const { t } = useTranslation('member');
  const run = useRunMutation();
  const list = useListSessionsQuery();
  const [revokeOthers, { isLoading: isRevoking }] = useRevokeOtherSessionsMutation();
  const [confirming, setConfirming] = useState(false);
  const [formError, setFormError] = useFormError();
  const others = (list.data ?? []).filter((s) => !s.current).length;

  const endOthers = async () => {
    await run(revokeOthers(), {
      fallback: t('sessions.othersFailed'),
      success: ({ message }) => message,
      formError: setFormError,
    });
    setConfirming(false);
  };

  return (
    <section className="card" aria-labelledby="sessions-title">
      <h3 id="sessions-title">{t('sessions.title')}</h3>
      <FormError message={formError} />
      <QueryState
        query={list}
        loading={t('sessions.loading')}
        failed={t('sessions.failed')}
        empty={{ when: (sessions) => sessions.length === 0, message: t('sessions.empty') }}
      >
        {(sessions) => (
          <>
            <ul className="list">
              {sessions.map((session) => (
                <SessionItem key={session.id} session={session} formError={setFormError} />
              ))}
            </ul>
            {others > 0 ? (
              <button type="button" className="button button--secondary" onClick={() => setConfirming(true)}>
                {t('sessions.endOthers')}
              </button>
            ) : (
              <p className="muted">{t('sessions.alone')}</p>
            )}
          </>
        )}
      </QueryState>
      {confirming ? (
        <Dialog
          title={t('sessions.confirmTitle')}
          onClose={() => setConfirming(false)}
          actions={
            <>
              <button type="button" className="button" aria-disabled={isRevoking || undefined} onClick={() => void endOthers()}>
                {isRevoking ? t('sessions.ending') : t('sessions.endCount', { count: others })}
              </button>
              <button type="button" className="button button--secondary" onClick={() => setConfirming(false)}>
                {t('sessions.cancel')}
              </button>
            </>
          }
        >
          <p>{t('sessions.confirmText')}</p>
        </Dialog>
      ) : null}
    </section>
  );
}
