import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { api, type MarketCandles } from '../../api/enhanced';
import { renderApp } from '../../test/renderWithProviders';
import { json, stubApi } from '../../test/stubApi';
import { chooseLanguage, i18n } from '../../i18n';
import { asOfWords, formatPrice, summary } from './marketWords';

// recharts needs a layout engine jsdom does not have; the page's states are what is tested here.
vi.mock('./MarketChart', () => ({
  MarketChart: ({ data }: { data: MarketCandles }) => <div data-testid={`market-chart-${data.symbol}`}>{data.candles.length} days</div>,
}));

const eurusd: MarketCandles = {
  symbol: 'EURUSD',
  interval: '1d',
  status: 'live',
  asOf: '2026-11-25T16:30:00Z',
  source: 'European Central Bank reference rates (via Frankfurter)',
  referenceRate: true,
  candles: [
    { time: '2026-11-24', open: '1.1611', high: '1.1611', low: '1.1611', close: '1.1611' },
    { time: '2026-11-25', open: '1.1597', high: '1.1597', low: '1.1597', close: '1.1597' },
  ],
};

const btcusdt: MarketCandles = {
  symbol: 'BTCUSDT',
  interval: '1d',
  status: 'live',
  asOf: '2026-11-25T16:30:00Z',
  source: 'Binance',
  referenceRate: false,
  candles: [
    { time: '2026-11-24', open: '90233.09', high: '91999.99', low: '89900', close: '91540.66' },
    { time: '2026-11-25', open: '91540.67', high: '92215', low: '91020.5', close: '91890.42' },
  ],
};

const unavailable = (symbol: MarketCandles['symbol'], source: string): MarketCandles => ({
  symbol,
  interval: '1d',
  status: 'unavailable',
  source,
  referenceRate: symbol === 'EURUSD',
  candles: [],
});

function renderAppWith(eurusdAnswer: () => Response) {
  stubMarkets({ EURUSD: eurusdAnswer, BTCUSDT: json(btcusdt) });
  return renderApp({ route: '/market-rates' });
}

function stubMarkets(answers: Partial<Record<MarketCandles['symbol'], Response | (() => Response | Promise<Response>)>>) {
  return stubApi({
    'GET /api/market/candles': (request: Request) => {
      const symbol = new URL(request.url).searchParams.get('symbol') as MarketCandles['symbol'];
      const answer = answers[symbol];
      if (!answer) return json({ message: 'no stub' }, 503);
      return typeof answer === 'function' ? answer() : answer.clone();
    },
  });
}

describe('market words', () => {
  it('keeps the provider’s digits and groups thousands', () => {
    expect(formatPrice('91890.42')).toBe('91,890.42');
    expect(formatPrice('1.1597')).toBe('1.1597');
    expect(formatPrice('100000')).toBe('100,000');
    expect(formatPrice('0.000012345678901')).toBe('0.000012345678901');
    expect(formatPrice('91890.42', 'de')).toBe('91.890,42');
    expect(formatPrice('1.1597', 'de')).toBe('1,1597');
    expect(formatPrice('n/a')).toBe('n/a');
  });

  it('says the latest close and the range of the period in words', () => {
    const t = i18n.getFixedT('en', 'market');
    const text = summary(btcusdt.candles, false, t);
    expect(text).toMatch(/^Latest close \(.*2026\): 91,890\.42\. From .* it ranged from 89,900 \(.*\) to 92,215 \(.*\)\.$/);
    expect(summary(eurusd.candles, true, t)).toMatch(/^Latest reference rate \(.*\): 1\.1597\./);
  });
});

describe('market rates page', () => {
  it('shows both daily charts with their text alternative, what each rate is, and the source', async () => {
    const { to } = stubMarkets({ EURUSD: json(eurusd), BTCUSDT: json(btcusdt) });
    renderApp({ route: '/market-rates' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Current Rates' })).toBeTruthy();

    const fx = await screen.findByTestId('market-EURUSD');
    expect(within(fx).getByRole('heading', { level: 2, name: 'EUR/USD — euro in US dollars' })).toBeTruthy();
    expect(await within(fx).findByTestId('market-chart-EURUSD')).toBeTruthy();
    expect(within(fx).getByText(/European Central Bank’s euro reference rate: one rate per working day/)).toBeTruthy();
    expect(within(fx).getByTestId('market-summary-EURUSD').textContent).toMatch(/^Latest reference rate \(.*\): 1\.1597\./);
    expect(within(fx).getByText(/Source: European Central Bank reference rates \(via Frankfurter\)\./)).toBeTruthy();
    expect(within(fx).getByRole('table').querySelectorAll('tbody tr')).toHaveLength(2);
    expect(within(fx).queryByText(/unavailable/)).toBeNull();

    const btc = screen.getByTestId('market-BTCUSDT');
    expect(await within(btc).findByTestId('market-chart-BTCUSDT')).toBeTruthy();
    expect(within(btc).getByTestId('market-summary-BTCUSDT').textContent).toContain('91,890.42');
    expect(within(btc).getByRole('columnheader', { name: 'High' })).toBeTruthy();
    expect(within(btc).getByText(/Source: Binance\./)).toBeTruthy();
    expect(to('GET /api/market/candles').map((r) => r.path).sort()).toEqual(['/api/market/candles?symbol=BTCUSDT&interval=1d', '/api/market/candles?symbol=EURUSD&interval=1d']);
  });

  it('says when the server could not reach the provider, with when its figures are from, and still shows them', async () => {
    const asOf = new Date(Date.now() - 3 * 3_600_000).toISOString();
    stubMarkets({ EURUSD: json({ ...eurusd, status: 'stale', asOf }), BTCUSDT: json(btcusdt) });
    renderApp({ route: '/market-rates' });
    const fx = await screen.findByTestId('market-EURUSD');
    const notice = await within(fx).findByTestId('market-out-of-date-EURUSD');
    const { at } = asOfWords(asOf, 'en');
    expect(notice.textContent).toContain(`Live data unavailable. These rates may be out of date — as of ${at}, 3 hours ago.`);
    expect(notice.getAttribute('role')).toBe('status');
    expect(within(notice).getByRole('button', { name: 'Check EUR/USD again' }).textContent).toBe('Retry');
    expect(await within(fx).findByTestId('market-chart-EURUSD')).toBeTruthy();
    expect(within(screen.getByTestId('market-BTCUSDT')).queryByTestId('market-out-of-date-BTCUSDT')).toBeNull();
  });

  it('keeps the last figures when a refresh fails, says they may be out of date, and checks again on Retry', async () => {
    const asOf = new Date(Date.now() - 5 * 60_000).toISOString();
    let fail = false;
    const { to } = stubMarkets({
      EURUSD: () => (fail ? json({ message: 'The server is busy.' }, 503) : json({ ...eurusd, asOf })),
      BTCUSDT: json(btcusdt),
    });
    const { store } = renderApp({ route: '/market-rates' });
    const fx = await screen.findByTestId('market-EURUSD');
    expect(await within(fx).findByTestId('market-chart-EURUSD')).toBeTruthy();
    expect(within(fx).queryByTestId('market-out-of-date-EURUSD')).toBeNull();

    // The page's next refresh fails (as the 5-minute poll would).
    fail = true;
    await store.dispatch(api.endpoints.getMarketCandles.initiate({ symbol: 'EURUSD', interval: '1d' }, { forceRefetch: true, subscribe: false }));
    const notice = await within(fx).findByTestId('market-out-of-date-EURUSD');
    expect(notice.textContent).toContain(`We could not check for newer rates just now. These may be out of date — as of ${asOfWords(asOf, 'en').at}, 5 minutes ago.`);
    // The figures stay, and no error replaces them.
    expect(within(fx).getByTestId('market-chart-EURUSD')).toBeTruthy();
    expect(within(fx).getByTestId('market-summary-EURUSD').textContent).toContain('1.1597');
    expect(within(fx).queryByRole('alert')).toBeNull();

    // Retry asks again; once it succeeds the notice goes.
    const asked = to('GET /api/market/candles').filter((r) => r.path.includes('EURUSD')).length;
    fail = false;
    await userEvent.setup().click(within(notice).getByRole('button', { name: 'Check EUR/USD again' }));
    await waitFor(() => expect(within(fx).queryByTestId('market-out-of-date-EURUSD')).toBeNull());
    expect(to('GET /api/market/candles').filter((r) => r.path.includes('EURUSD')).length).toBe(asked + 1);
    expect(within(fx).getByTestId('market-chart-EURUSD')).toBeTruthy();
  });

  it('keeps the notice and the figures when Retry fails too', async () => {
    let fail = false;
    const { store } = renderAppWith(() => (fail ? json({ message: 'busy' }, 503) : json(eurusd)));
    const fx = await screen.findByTestId('market-EURUSD');
    await within(fx).findByTestId('market-chart-EURUSD');
    fail = true;
    await store.dispatch(api.endpoints.getMarketCandles.initiate({ symbol: 'EURUSD', interval: '1d' }, { forceRefetch: true, subscribe: false }));
    const notice = await within(fx).findByTestId('market-out-of-date-EURUSD');
    await userEvent.setup().click(within(notice).getByRole('button', { name: 'Check EUR/USD again' }));
    await waitFor(() => expect(within(notice).getByRole('button', { name: 'Check EUR/USD again' }).textContent).toBe('Retry'));
    expect(within(fx).getByTestId('market-out-of-date-EURUSD')).toBeTruthy();
    expect(within(fx).getByTestId('market-chart-EURUSD')).toBeTruthy();
  });

  it('says plainly when there is no data at all, and draws nothing', async () => {
    stubMarkets({ EURUSD: json(unavailable('EURUSD', 'ECB')), BTCUSDT: json(unavailable('BTCUSDT', 'Binance')) });
    renderApp({ route: '/market-rates' });
    for (const symbol of ['EURUSD', 'BTCUSDT'] as const) {
      const panel = await screen.findByTestId(`market-${symbol}`);
      expect((await within(panel).findByText('Market data is unavailable right now.')).getAttribute('role')).toBe('status');
      expect(within(panel).queryByTestId(`market-chart-${symbol}`)).toBeNull();
      expect(within(panel).queryByRole('table')).toBeNull();
      expect(within(panel).queryByText(/Last updated/)).toBeNull();
    }
  });

  it('shows a spinner while loading, and on a first load that fails an error with a retry that asks again', async () => {
    let fail = true;
    // The first answer waits until the spinner has been seen, so a quick answer cannot hide it.
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    stubMarkets({
      EURUSD: async () => {
        await answered;
        return fail ? json({ message: 'The server is busy.' }, 500) : json(eurusd);
      },
      BTCUSDT: json(btcusdt),
    });
    renderApp({ route: '/market-rates' });
    const fx = await screen.findByTestId('market-EURUSD');
    expect(within(fx).getByText('Loading EUR/USD…')).toBeTruthy();
    answer();
    const alert = await within(fx).findByRole('alert');
    expect(within(alert).getByRole('heading', { name: 'EUR/USD could not be loaded' })).toBeTruthy();
    expect(alert.textContent).toContain('The server is busy.');
    fail = false;
    await userEvent.setup().click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await within(fx).findByTestId('market-chart-EURUSD')).toBeTruthy();
    expect(within(fx).queryByRole('alert')).toBeNull();
  });

  it('is shown in German once the reader chooses German; the provider’s source stays as it is', async () => {
    stubMarkets({ EURUSD: json({ ...eurusd, status: 'stale', asOf: '2026-11-20T09:00:00Z' }), BTCUSDT: json(unavailable('BTCUSDT', 'Binance')) });
    await chooseLanguage('de');
    renderApp({ route: '/market-rates' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Aktuelle Kurse' })).toBeTruthy();
    const fx = await screen.findByTestId('market-EURUSD');
    expect(within(fx).getByRole('heading', { level: 2, name: 'EUR/USD – Euro in US-Dollar' })).toBeTruthy();
    expect((await within(fx).findByTestId('market-out-of-date-EURUSD')).textContent).toMatch(
      /^Live-Daten nicht verfügbar\. Diese Kurse sind möglicherweise nicht mehr aktuell – Stand: 20\.11\.2026, \d{2}:\d{2}, vor \d+ Tagen\.Erneut versuchen$/,
    );
    expect(within(fx).getByTestId('market-summary-EURUSD').textContent).toBe(
      'Letzter Referenzkurs (25.11.2026): 1,1597. Vom 24.11.2026 bis zum 25.11.2026 lag der Kurs zwischen 1,1597 (25.11.2026) und 1,1611 (24.11.2026).',
    );
    expect(within(fx).getByRole('columnheader', { name: 'Referenzkurs' })).toBeTruthy();
    expect(within(fx).getByText(/^Quelle: European Central Bank reference rates \(via Frankfurter\)\./).textContent).toContain('Zuletzt aktualisiert:');
    const btc = screen.getByTestId('market-BTCUSDT');
    expect((await within(btc).findByText('Marktdaten sind zurzeit nicht verfügbar.')).getAttribute('role')).toBe('status');
  });
});
