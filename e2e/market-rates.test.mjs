// The market rates page in a real browser against a running server whose price providers cannot
// be reached (CI and development machines have no internet access, and nothing was ever cached
// in a fresh database): the page must say so plainly, draw no chart and invent no figure, on a
// phone and on a desktop, and stay accessible. Same environment as the other suites.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import { api, expectAccessible, heading, withBrowser, withSuiteBrowser } from './flows.mjs';

const UNAVAILABLE = 'Market data is unavailable right now.';
const MARKETS = [
  { symbol: 'EURUSD', title: 'EUR/USD — euro in US dollars' },
  { symbol: 'BTCUSDT', title: 'BTC/USDT — bitcoin in tether' },
];

describe(`market rates against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  for (const [device, viewport] of [
    ['a phone', { width: 360, height: 740 }],
    ['a desktop', { width: 1280, height: 900 }],
  ]) {
    it(`on ${device}, a visitor reaches the page from the menu and is told that no market data is available`, async () => {
      await withBrowser(
        suite.browser,
        async ({ page }) => {
          // The server's own answer first: nothing cached, so nothing to show.
          await page.goto(url('/'));
          for (const { symbol } of MARKETS) {
            const res = await api(page, 'GET', `/api/market/candles?symbol=${symbol}&interval=1d`);
            assert.equal(res.status, 200);
            assert.equal(res.body.status, 'unavailable', `${symbol} is unavailable while the providers cannot be reached`);
            assert.deepEqual(res.body.candles, []);
          }

          // Phones fold the main menu behind its button.
          const toggle = page.getByRole('button', { name: 'Menu', exact: true });
          if (await toggle.isVisible()) await toggle.click();
          await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Current Rates' }).click();
          await heading(page, 'Current Rates').waitFor();
          assert.equal(new URL(page.url()).pathname, '/market-rates');

          for (const { symbol, title } of MARKETS) {
            const panel = page.getByTestId(`market-${symbol}`);
            await panel.getByRole('heading', { level: 2, name: title }).waitFor();
            const notice = panel.getByRole('status').filter({ hasText: UNAVAILABLE });
            await notice.waitFor();
            assert.equal((await notice.textContent()).trim(), UNAVAILABLE);
            assert.equal(await panel.getByTestId(`market-chart-${symbol}`).count(), 0, `${symbol}: no chart without data`);
            assert.equal(await panel.getByRole('table').count(), 0, `${symbol}: no table without data`);
            assert.match(await panel.textContent(), /Source: /);
          }
          assert.equal(await page.getByText(/Live data unavailable/).count(), 0, 'nothing claims to be old data when there is none');
          await expectAccessible(page, `/market-rates on ${device}`);
        },
        { viewport },
      );
    });
  }
});
