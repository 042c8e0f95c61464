import { lazy, Suspense } from 'react';
import { useGetMarketCandlesQuery, type MarketCandles } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { Spinner } from '../../components/Spinner';
import { useLocale, useTranslation } from '../../i18n';
import { asOfWords, CHART_HEIGHT, formatDay, formatPrice, markets, summary, type MarketSymbol } from './marketWords';

const MarketChart = lazy(() => import('./MarketChart').then((m) => ({ default: m.MarketChart })));

function CandleTable({ data, title }: { data: MarketCandles; title: string }) {
  const { t } = useTranslation('market');
  const locale = useLocale();
  return (
    // Hidden by a wrapper: a table sizes to its content whatever width it is given.
    <div className="visually-hidden">
      <table>
        <caption>{t('table.caption', { title })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('table.day')}</th>
            {data.referenceRate ? (
              <th scope="col">{t('table.reference')}</th>
            ) : (
              <>
                <th scope="col">{t('table.open')}</th>
                <th scope="col">{t('table.high')}</th>
                <th scope="col">{t('table.low')}</th>
                <th scope="col">{t('table.close')}</th>
              </>
            )}
          </tr>
        </thead>
        <tbody>
          {data.candles.map((c) => (
            <tr key={c.time}>
              <td>{formatDay(c.time, locale)}</td>
              {data.referenceRate ? (
                <td>{formatPrice(c.close, locale)}</td>
              ) : (
                <>
                  <td>{formatPrice(c.open, locale)}</td>
                  <td>{formatPrice(c.high, locale)}</td>
                  <td>{formatPrice(c.low, locale)}</td>
                  <td>{formatPrice(c.close, locale)}</td>
                </>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Attribution({ data }: { data: MarketCandles }) {
  const { t } = useTranslation('market');
  return (
    <p className="muted market-source">
      {t('source', { source: data.source })}
      {data.asOf ? (
        <>
          {' '}
          {/* The whole sentence is the <time>: its datetime carries the moment, and the page
              does without the Trans component's chunk. */}
          <time dateTime={data.asOf}>{t('updated', { at: formatDateTime(data.asOf) })}</time>
        </>
      ) : null}
    </p>
  );
}

function MarketBody({ data, title }: { data: MarketCandles; title: string }) {
  const { t } = useTranslation('market');
  const locale = useLocale();
  if (data.status === 'unavailable' || data.candles.length === 0) {
    return (
      <>
        <p className="notice" role="status">
          {t('unavailable')}
        </p>
        <Attribution data={data} />
      </>
    );
  }
  return (
    <>
      <p data-testid={`market-summary-${data.symbol}`}>{summary(data.candles, data.referenceRate, t, locale)}</p>
      <Suspense
        fallback={
          <div style={{ minHeight: CHART_HEIGHT }}>
            <Spinner label={t('drawing')} />
          </div>
        }
      >
        <MarketChart data={data} />
      </Suspense>
      <CandleTable data={data} title={title} />
      <Attribution data={data} />
    </>
  );
}

// Said above figures that may be old: the server's cache could not reach the provider (stale), or
// this page could not reach the server for newer ones (the last answer stays on screen). Calm, with
// the time the figures are from and a way to check again.
function OutOfDate({ data, refreshFailed, checking, onRetry, pair }: {
  data: MarketCandles;
  refreshFailed: boolean;
  checking: boolean;
  onRetry: () => void;
  pair: string;
}) {
  const { t } = useTranslation('market');
  const locale = useLocale();
  if (!data.asOf || (!refreshFailed && data.status !== 'stale')) return null;
  const { at, ago } = asOfWords(data.asOf, locale);
  return (
    <div className="notice market-out-of-date" role="status" data-testid={`market-out-of-date-${data.symbol}`}>
      <p>{t(refreshFailed ? 'refreshFailed' : 'stale', { at, ago })}</p>
      <button type="button" className="button button--secondary" onClick={onRetry} disabled={checking} aria-label={t('retryLabel', { pair })}>
        {checking ? t('retrying') : t('retry')}
      </button>
    </div>
  );
}

// The cache behind the API changes every 15 minutes at most (docs/market-rates.md); an open page
// asks again every 5, and keeps what it has if that fails.
const REFRESH_MS = 5 * 60_000;

function MarketPanel({ symbol, pair }: { symbol: MarketSymbol; pair: string }) {
  const { t } = useTranslation('market');
  const query = useGetMarketCandlesQuery({ symbol, interval: '1d' }, { pollingInterval: REFRESH_MS, skipPollingIfUnfocused: true });
  const id = `market-${symbol}-title`;
  const title = t(`${symbol}.title`);
  return (
    <section className="card market-card" aria-labelledby={id} data-testid={`market-${symbol}`}>
      <h2 id={id} className="panel__title">
        {title}
      </h2>
      <p className="muted">{t(`${symbol}.about`)}</p>
      <QueryState query={query} loading={t('loading', { pair })} failed={t('failed', { pair })}>
        {(data) => (
          <>
            <OutOfDate
              data={data}
              refreshFailed={query.isError}
              checking={query.isFetching}
              onRetry={() => void query.refetch()}
              pair={pair}
            />
            <MarketBody data={data} title={title} />
          </>
        )}
      </QueryState>
    </section>
  );
}

export function MarketRatesPage() {
  const { t } = useTranslation('market');
  return (
    <section className="page container" aria-labelledby="market-rates-title">
      <h1 id="market-rates-title">{t('title')}</h1>
      <p>{t('lead')}</p>
      <div className="market-grid">
        {markets.map((m) => (
          <MarketPanel key={m.symbol} {...m} />
        ))}
      </div>
    </section>
  );
}
