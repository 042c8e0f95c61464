import { useGetChainStatusQuery, type ChainNetworkStatus } from '../../api/enhanced';
import { networkName } from '../../components/cryptoWords';
import { useLocale, useTranslation } from '../../i18n';

// The staff dashboard's word on the deposit watchers (GET /api/staff/chain-status): for each
// watched chain, whether its node answers and how far the watcher has read. Nothing shows when no
// chain is watched, or while the first answer is awaited: the queues above are what staff came
// for, and a failed read here is retried by the next poll rather than shouting over them.

const POLL_MS = 30_000;

function Network({ status }: { status: ChainNetworkStatus }) {
  const { t } = useTranslation('dashboard');
  const locale = useLocale();
  const number = new Intl.NumberFormat(locale);
  const time = (iso: string) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  const name = networkName(status.network);
  let detail: string;
  switch (status.state) {
    case 'down':
      detail = t('chains.down', { since: status.lastErrorAt ? time(status.lastErrorAt) : '', error: status.lastError });
      break;
    case 'behind':
      detail = t('chains.behind', { cursor: number.format(status.cursor), tip: number.format(status.tip) });
      break;
    case 'starting':
      detail = t('chains.starting');
      break;
    default:
      detail = t('chains.ok', { tip: number.format(status.tip), count: status.confirmations });
  }
  return (
    <li className={`chains__network chains__network--${status.state}`} data-testid={`chain-${status.network}`}>
      <span className="chains__dot" aria-hidden="true" />
      <div>
        <p className="chains__name">
          {name} <span className="chains__state">{t(`chains.states.${status.state}`)}</span>
        </p>
        <p className="muted chains__detail">{detail}</p>
        {status.waitingForPrice > 0 ? <p className="chains__warn">{t('chains.waitingForPrice', { count: status.waitingForPrice })}</p> : null}
        {status.orphaned > 0 ? <p className="chains__warn">{t('chains.orphaned', { count: status.orphaned })}</p> : null}
      </div>
    </li>
  );
}

export function ChainWatchers() {
  const { t } = useTranslation('dashboard');
  const { data } = useGetChainStatusQuery(undefined, { pollingInterval: POLL_MS });
  if (!data || data.networks.length === 0) return null;
  return (
    <section className="card chains" aria-labelledby="chains-title" data-testid="chain-watchers">
      <h2 id="chains-title" className="chains__title">
        {t('chains.title')}
      </h2>
      <ul className="chains__list">
        {data.networks.map((n) => (
          <Network key={n.network} status={n} />
        ))}
      </ul>
    </section>
  );
}
