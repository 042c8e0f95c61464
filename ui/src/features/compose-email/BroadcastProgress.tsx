import { useCancelEmailBroadcastMutation, useGetEmailBroadcastQuery } from '../../api/enhanced';
import { FormError, useFormError } from '../../components/form/FormError';
import { formatDecimal } from '../../components/format';
import { useRunMutation } from '../../components/useRunMutation';
import { useTranslation } from '../../i18n';

const POLL_MS = 1000;

// The progress of one send, read again every second while messages still wait: sent, failed
// and left, and a button to stop it (what still waits is never sent).
export function BroadcastProgress({ id, onDismiss }: { id: string; onDismiss: () => void }) {
  const { t } = useTranslation('mail');
  const run = useRunMutation();
  const [formError, setFormError] = useFormError();
  const query = useGetEmailBroadcastQuery({ id });
  const sending = query.data?.status === 'sending';
  useGetEmailBroadcastQuery({ id }, { pollingInterval: sending ? POLL_MS : 0, skip: !sending });
  const [cancel, { isLoading: cancelling }] = useCancelEmailBroadcastMutation();
  const b = query.data;
  if (!b) {
    return (
      <section className="card broadcast-progress" aria-labelledby="progress-title">
        <h2 id="progress-title">{t('progress.title')}</h2>
        <p className="muted" role="status">
          {query.isError ? t('progress.failed') : t('progress.loading')}
        </p>
      </section>
    );
  }
  const done = b.sent + b.failed;
  const stop = () =>
    void run(cancel({ id }), { fallback: t('progress.cancelFailed'), success: t('progress.cancelledToast'), formError: setFormError });
  return (
    <section className="card broadcast-progress" aria-labelledby="progress-title" data-testid="broadcast-progress" data-status={b.status}>
      <h2 id="progress-title">{t('progress.title')}</h2>
      <p className="break-anywhere">
        <strong>{b.subject}</strong>
      </p>
      <progress max={Math.max(b.recipients, 1)} value={done + b.cancelled} aria-label={t('progress.bar')} />
      <dl className="broadcast-progress__counts" aria-live="polite">
        <div>
          <dt>{t('progress.sent')}</dt>
          <dd data-testid="progress-sent">{formatDecimal(String(b.sent))}</dd>
        </div>
        <div>
          <dt>{t('progress.failedCount')}</dt>
          <dd>{formatDecimal(String(b.failed))}</dd>
        </div>
        <div>
          <dt>{t('progress.left')}</dt>
          <dd>{formatDecimal(String(b.pending))}</dd>
        </div>
        {b.cancelled > 0 ? (
          <div>
            <dt>{t('progress.cancelled')}</dt>
            <dd>{formatDecimal(String(b.cancelled))}</dd>
          </div>
        ) : null}
      </dl>
      <p role="status" className="muted">
        {b.status === 'sending'
          ? t('progress.sending', { done: formatDecimal(String(done)), total: formatDecimal(String(b.recipients)) })
          : b.status === 'cancelled'
            ? t('progress.stopped')
            : t('progress.done', { count: b.sent })}
      </p>
      <FormError message={formError} />
      <div className="button-row">
        {b.status === 'sending' ? (
          <button type="button" className="button button--danger button--small" aria-disabled={cancelling || undefined} onClick={() => !cancelling && stop()}>
            {cancelling ? t('progress.cancelling') : t('progress.cancel')}
          </button>
        ) : (
          <button type="button" className="button button--secondary button--small" onClick={onDismiss}>
            {t('progress.newMessage')}
          </button>
        )}
      </div>
    </section>
  );
}
