import { useGetSecurityLogQuery, type Role } from '../../api/enhanced';
import { useLabels } from '../../components/labels';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { useTranslation } from '../../i18n';
import { useDeviceName } from './deviceWords';

export function SecurityLogSection() {
  const { t } = useTranslation('member');
  const { t: tImpersonation } = useTranslation('impersonation');
  const labels = useLabels();
  const deviceName = useDeviceName();
  const log = useGetSecurityLogQuery({});
  return (
    <section className="card" aria-labelledby="security-log-title">
      <h3 id="security-log-title">{t('security.log')}</h3>
      <p className="muted">{t('security.logLead')}</p>
      <QueryState
        query={log}
        loading={t('security.logLoading')}
        failed={t('security.logFailed')}
        empty={{ when: (entries) => entries.length === 0, message: t('security.logEmpty') }}
      >
        {(entries) => (
          <ol className="list">
            {entries.map((entry) => (
              <li key={entry.id} className="list-item">
                <div className="list-item__main">
                  <p className="list-item__title">
                    {entry.kind === 'staff_viewed' ? tImpersonation('logViewed', { role: labels.role(entry.staffRole as Role) }) : entry.description}
                  </p>
                  <p className="list-item__meta">
                    <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
                    {entry.ip ? ` · ${t('security.ip', { ip: entry.ip })}` : ''}
                    {entry.userAgent ? ` · ${deviceName(entry.userAgent)}` : ''}
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
