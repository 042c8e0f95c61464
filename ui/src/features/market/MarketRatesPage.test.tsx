import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { MarketCandles } from '../../api/enhanced';
import { renderApp } from '../../test/renderWithProviders';
import { json, stubApi } from '../../test/stubApi';
import { chooseLanguage, i18n } from '../../i18n';
import { formatPrice, summary } from './marketWords';

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

function stubMarkets(answers: Partial<Record<MarketCandles['symbol'], Response | (() => Response)>>) {
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

  it('says when the data is not live, with the day it is from, and still shows it', async () => {
    stubMarkets({ EURUSD: json({ ...eurusd, status: 'stale', asOf: '2026-11-20T09:00:00Z' }), BTCUSDT: json(btcusdt) });
    renderApp({ route: '/market-rates' });
    const fx = await screen.findByTestId('market-EURUSD');
    const notice = await within(fx).findByText(/^Live data unavailable/);
    expect(notice.textContent).toMatch(/^Live data unavailable — showing data as of (Nov 20, 2026|20 Nov 2026)$/);
    expect(notice.getAttribute('role')).toBe('status');
    expect(await within(fx).findByTestId('market-chart-EURUSD')).toBeTruthy();
    expect(within(screen.getByTestId('market-BTCUSDT')).queryByText(/Live data unavailable/)).toBeNull();
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

  it('shows a spinner while loading, and an error with a retry when the server fails', async () => {
    let fail = true;
    stubMarkets({
      EURUSD: () => (fail ? json({ message: 'The server is busy.' }, 500) : json(eurusd)),
      BTCUSDT: json(btcusdt),
    });
    renderApp({ route: '/market-rates' });
    const fx = await screen.findByTestId('market-EURUSD');
    expect(within(fx).getByText('Loading EUR/USD…')).toBeTruthy();
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
    expect((await within(fx).findByText('Live-Daten nicht verfügbar – Daten vom 20.11.2026')).getAttribute('role')).toBe('status');
    expect(within(fx).getByTestId('market-summary-EURUSD').textContent).toBe(
      'Letzter Referenzkurs (25.11.2026): 1,1597. Vom 24.11.2026 bis zum 25.11.2026 lag der Kurs zwischen 1,1597 (25.11.2026) und 1,1611 (24.11.2026).',
    );
    expect(within(fx).getByRole('columnheader', { name: 'Referenzkurs' })).toBeTruthy();
    expect(within(fx).getByText(/^Quelle: European Central Bank reference rates \(via Frankfurter\)\./).textContent).toContain('Zuletzt aktualisiert:');
    const btc = screen.getByTestId('market-BTCUSDT');
    expect((await within(btc).findByText('Marktdaten sind zurzeit nicht verfügbar.')).getAttribute('role')).toBe('status');
  });
});
