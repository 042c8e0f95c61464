import { useListEmailBroadcastsQuery, type EmailBroadcast } from '../../api/enhanced';
import { formatDateTime, formatDecimal } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { useTranslation } from '../../i18n';

const statusBadge: Record<EmailBroadcast['status'], string> = {
  sending: 'badge badge--warning',
  done: 'badge badge--success',
  cancelled: 'badge',
};

function useAudience() {
  const { t } = useTranslation('mail');
  return (b: EmailBroadcast) => {
    const a = b.audience;
    if (a.kind === 'user') return t('audience.oneUser', { name: a.userName || t('audience.closedUser') });
    if (a.kind === 'role') {
      const role = a.role === 'admin' || a.role === 'author' ? a.role : 'subscriber';
      return t('audience.roleNamed', { role: t(`roles.${role}`) });
    }
    return t('audience.verified');
  };
}

// The latest sends, newest first: who, when, to whom, what, and how far each got. Read again
// every few seconds while one of them is still sending.
export function BroadcastList() {
  const { t } = useTranslation('mail');
  const audience = useAudience();
  const list = useListEmailBroadcastsQuery(undefined, { refetchOnMountOrArgChange: true });
  const sending = list.data?.broadcasts.some((b) => b.status === 'sending') ?? false;
  useListEmailBroadcastsQuery(undefined, { pollingInterval: sending ? 3000 : 0, skip: !sending });
  return (
    <section className="stack" aria-labelledby="history-title">
      <h2 id="history-title">{t('history.title')}</h2>
      <QueryState
        query={list}
        loading={t('history.loading')}
        failed={t('history.failed')}
        empty={{ when: (d) => d.broadcasts.length === 0, message: t('history.empty') }}
      >
        {(data) => (
          <ol className="queue broadcast-list" aria-busy={list.isFetching || undefined}>
            {data.broadcasts.map((b) => (
              <li key={b.id} className="queue-item" data-testid="broadcast-item">
                <div className="queue-item__who">
                  <h3 className="queue-item__name break-anywhere">{b.subject}</h3>
                  <p className="muted">
                    {b.template === 'verification' || b.template === 'password_reset'
                      ? t('history.automated', { template: t(`templates.${b.template}`) })
                      : t('history.composed')}
                  </p>
                </div>
                <p className="queue-item__meta">
                  <span className={statusBadge[b.status]}>{t(`status.${b.status}`)}</span>
                  <span>{t('history.to', { audience: audience(b) })}</span>
                  <span>
                    {t('history.by', { name: b.authorName || t('history.formerStaff') })} ·{' '}
                    <time dateTime={b.createdAt}>{formatDateTime(b.createdAt)}</time>
                  </span>
                </p>
                <p className="muted">
                  {t('history.counts', {
                    sent: formatDecimal(String(b.sent)),
                    failed: formatDecimal(String(b.failed)),
                    left: formatDecimal(String(b.pending)),
                    cancelled: formatDecimal(String(b.cancelled)),
                    total: formatDecimal(String(b.recipients)),
                  })}
                </p>
              </li>
            ))}
          </ol>
        )}
      </QueryState>
    </section>
  );
}
