import { lazy, Suspense } from 'react';
import { useGetMarketCandlesQuery, type MarketCandles } from '../../api/enhanced';
import { formatDateTime } from '../../components/format';
import { QueryState } from '../../components/QueryState';
import { Spinner } from '../../components/Spinner';
import { CHART_HEIGHT, formatDay, formatPrice, markets, staleNotice, summary, UNAVAILABLE_NOTICE, type MarketSymbol } from './marketWords';

const MarketChart = lazy(() => import('./MarketChart').then((m) => ({ default: m.MarketChart })));

function CandleTable({ data, title }: { data: MarketCandles; title: string }) {
  return (
    // Hidden by a wrapper: a table sizes to its content whatever width it is given.
    <div className="visually-hidden">
      <table>
        <caption>{title}: daily prices</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            {data.referenceRate ? (
              <th scope="col">Reference rate</th>
            ) : (
              <>
                <th scope="col">Open</th>
                <th scope="col">High</th>
                <th scope="col">Low</th>
                <th scope="col">Close</th>
              </>
            )}
          </tr>
        </thead>
        <tbody>
          {data.candles.map((c) => (
            <tr key={c.time}>
              <td>{formatDay(c.time)}</td>
              {data.referenceRate ? (
                <td>{formatPrice(c.close)}</td>
              ) : (
                <>
                  <td>{formatPrice(c.open)}</td>
                  <td>{formatPrice(c.high)}</td>
                  <td>{formatPrice(c.low)}</td>
                  <td>{formatPrice(c.close)}</td>
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
  return (
    <p className="muted market-source">
      Source: {data.source}.
      {data.asOf ? (
        <>
          {' '}
          Last updated <time dateTime={data.asOf}>{formatDateTime(data.asOf)}</time>.
        </>
      ) : null}
    </p>
  );
}

function MarketBody({ data, title }: { data: MarketCandles; title: string }) {
  if (data.status === 'unavailable' || data.candles.length === 0) {
    return (
      <>
        <p className="notice" role="status">
          {UNAVAILABLE_NOTICE}
        </p>
        <Attribution data={data} />
      </>
    );
  }
  return (
    <>
      {data.status === 'stale' && data.asOf ? (
        <p className="notice" role="status">
          {staleNotice(data.asOf)}
        </p>
      ) : null}
      <p data-testid={`market-summary-${data.symbol}`}>{summary(data.candles, data.referenceRate)}</p>
      <Suspense
        fallback={
          <div style={{ minHeight: CHART_HEIGHT }}>
            <Spinner label="Drawing the chart…" />
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

function MarketPanel({ symbol, title, about }: { symbol: MarketSymbol; title: string; about: string }) {
  const query = useGetMarketCandlesQuery({ symbol, interval: '1d' });
  const id = `market-${symbol}-title`;
  return (
    <section className="card market-card" aria-labelledby={id} data-testid={`market-${symbol}`}>
      <h2 id={id} className="panel__title">
        {title}
      </h2>
      <p className="muted">{about}</p>
      <QueryState query={query} loading={`Loading ${title.split(' ')[0]}…`} failed={`${title.split(' ')[0]} could not be loaded`}>
        {(data) => <MarketBody data={data} title={title} />}
      </QueryState>
    </section>
  );
}

export function MarketRatesPage() {
  return (
    <section className="page container" aria-labelledby="market-rates-title">
      <h1 id="market-rates-title">Current Rates</h1>
      <p>
        Daily prices of the euro and of bitcoin, for information. They are not an offer, and Clearvest plans do not
        depend on them.
      </p>
      <div className="market-grid">
        {markets.map((m) => (
          <MarketPanel key={m.symbol} {...m} />
        ))}
      </div>
    </section>
  );
}
