// Deposits credited from the chain, in a real browser against a server that watches a local
// Ethereum node (scripts/test.sh starts anvil, deploys the six-decimal test token and the server
// with CLEARVEST_CHAIN_ETH_*; the node mines only when this test says so). An investor opens the
// deposit page and sees their own address; the test sends tokens to it; the dashboard shows the
// transfer seen with 1 of 3 confirmations, then the credited balance, with no page reload. Staff
// see the watcher up to date on their dashboard.
//
//   E2E_BASE_URL, E2E_MAIL_DIR, CHROMIUM_PATH   as for the other browser tests
//   E2E_ANVIL_URL, E2E_CHAIN_TOKEN              the node and the token's address
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BASE_URL, url } from '../browser.mjs';
import * as flows from '../flows.mjs';
import { adminCredentials, expectAccessible, heading, login, registerVerified, screenshotSizes, uniqueEmail, withSuiteBrowser } from '../flows.mjs';
import { mine, sendToken } from './node.mjs';

const ANVIL = process.env.E2E_ANVIL_URL;
const TOKEN = process.env.E2E_CHAIN_TOKEN;
// The watcher reads the node every few seconds and the page asks again as often: a step may take
// two rounds.
const LIVE = { timeout: 30_000 };

describe(`deposits from the chain against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('shows the investor their own address, then the transfer seen and confirmed, live', async () => {
    assert.ok(ANVIL && TOKEN, 'E2E_ANVIL_URL and E2E_CHAIN_TOKEN name the node and the token');
    const investor = await flows.freshBrowser(suite.browser);
    const staff = await flows.freshBrowser(suite.browser);
    try {
      const { page } = investor;
      await registerVerified(page, { email: uniqueEmail('chain'), name: 'Chai Nwatcher' });

      await page.goto(url('/deposit-payment'));
      await heading(page, 'Fund Wallet').waitFor();
      await page.getByLabel('Asset and network').selectOption({ label: 'USDT on Ethereum (ERC-20)' });
      const own = page.getByTestId('own-deposit-address');
      await own.getByRole('img', { name: /QR code/ }).waitFor();
      await own.getByRole('button', { name: 'Copy address' }).waitFor();
      const address = (await own.getByTestId('address-text').textContent()).trim();
      assert.match(address, /^0x[0-9a-fA-F]{40}$/);
      await expectAccessible(page, '/deposit-payment (own address)');
      await screenshotSizes(page, 'chain-deposit-own-address');

      // 25 USDT arrive in a block: one confirmation.
      await page.goto(url('/my-account'));
      await heading(page, /Welcome, Chai/).waitFor();
      await sendToken(ANVIL, TOKEN, address, 25_000_000n);
      await mine(ANVIL, 1);
      await page.getByText('Seen on the network · 1 of 3 confirmations').waitFor(LIVE);
      const figure = page.locator('.figure').filter({ hasText: 'Available balance' });
      await figure.getByText('$0.00').waitFor();
      await expectAccessible(page, '/my-account (deposit seen)');
      await screenshotSizes(page, 'chain-dashboard-seen');

      // Two more blocks: credited, and the balance shows it without a reload.
      await mine(ANVIL, 2);
      await figure.getByText('$25.00').waitFor(LIVE);
      await screenshotSizes(page, 'chain-dashboard-credited');

      // Staff see the watcher up to date.
      const admin = adminCredentials();
      await login(staff.page, admin.email, admin.password);
      const watchers = staff.page.getByRole('region', { name: 'Deposit watchers' });
      await watchers.getByText('Up to date').waitFor(LIVE);
      await expectAccessible(staff.page, '/my-account (staff, watchers)');
      await screenshotSizes(staff.page, 'chain-staff-dashboard');
    } finally {
      await investor.context.close();
      await staff.context.close();
    }
    assert.deepEqual([...investor.problems, ...staff.problems], [], 'no uncaught errors or CSP violations in the pages');
  });
});
