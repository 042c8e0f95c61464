// The money history end to end in a real browser against a running server: an investor starts
// with an empty history, makes a deposit that waits at the top of it at its real amount, sees it
// become one settled row when staff confirm it (without a reload), downloads a CSV statement and
// reads it; the dashboard shows the balance chart and, when staff confirm a second deposit,
// updates without a reload (the events stream). Withdrawals, their fees and a maturing
// investment are in money-story.test.mjs, which moves the server's clock. Same environment as
// deposits.test.mjs (E2E_BASE_URL, E2E_MAIL_DIR, the demo admin, CHROMIUM_PATH).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import { adminCredentials, api, button, expectAccessible, heading, signIn, signUpVerified, uniqueEmail, withSuiteBrowser } from './flows.mjs';

async function deposit(page, amount) {
  return (await flows.requestDeposit(page, amount)).transactionId;
}

async function confirm(page, transactionId, amount) {
  const res = await api(page, 'PATCH', '/api/payments/confirmPayment', { transactionId, amount, notes: 'Arrived in full.' });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

describe(`money history against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('shows the history, its details, a CSV statement, and a dashboard that updates live', async () => {
    const admin = adminCredentials();
    const email = uniqueEmail('history');
    const investor = await flows.freshBrowser(suite.browser, { acceptDownloads: true });
    const staff = await flows.freshBrowser(suite.browser);
    try {
      const { page } = investor;
      await signUpVerified(page, { email, name: 'Hana History' });
      await signIn(staff.page, admin.email, admin.password);

      // Nothing yet: the designed empty state, with the way to a first deposit.
      await page.goto(url('/transaction-History'));
      await heading(page, 'Transaction History').waitFor();
      await page.getByTestId('history-empty').getByRole('link', { name: 'Make a deposit' }).waitFor();
      await expectAccessible(page, '/transaction-History (empty)');

      // A deposit waiting for staff is at the top, apart, at its real amount.
      const first = await deposit(page, '100');
      await page.goto(url('/transaction-History'));
      await heading(page, 'Transaction History').waitFor();
      const pending = page.getByTestId('history-pending');
      const waiting = pending.getByTestId('movement').filter({ hasText: first });
      await waiting.getByText('+$100.00').waitFor();
      await waiting.getByText('Awaiting confirmation').waitFor();
      await waiting.getByText('Deposit via USDT (TRC20)').waitFor();
      await expectAccessible(page, '/transaction-History (pending)');

      // Staff confirm it: without a reload it leaves Pending and is one settled row.
      await page.evaluate(() => {
        globalThis.__sameDocument = true;
      });
      await confirm(staff.page, first, '100');
      await pending.waitFor({ state: 'detached' });
      const rows = page.getByTestId('movement').filter({ hasText: first });
      await rows.getByText('Credited').waitFor();
      await rows.getByText('+$100.00').waitFor();
      assert.equal(await rows.count(), 1, 'the deposit is one row');
      assert.equal(await page.getByTestId('movement').count(), 1);
      assert.equal(await page.evaluate(() => globalThis.__sameDocument), true, 'the history updated without a reload');
      await expectAccessible(page, '/transaction-History (confirmed)');

      // The deposit's row opens its own page, and Back returns to the history.
      await rows.getByRole('link').click();
      await page.waitForURL(url(`/transaction/${encodeURIComponent(first)}`));
      await heading(page, 'Payment Details').waitFor();
      assert.equal(await page.getByTestId('transaction-id').textContent(), first);
      await page.goBack();
      await heading(page, 'Transaction History').waitFor();

      // The statement of this month, read from the file the browser saved: one line per change
      // of the balance.
      const [download] = await Promise.all([page.waitForEvent('download'), button(page, 'Download statement (CSV)').click()]);
      assert.match(download.suggestedFilename(), /^clearvest-statement-\d{4}-\d{2}-01-to-\d{4}-\d{2}-\d{2}\.csv$/);
      const lines = (await readFile(await download.path(), 'utf8')).trimEnd().split('\r\n');
      assert.equal(lines[0], 'Date (UTC),Type,Reference,Details,Amount,Balance after');
      assert.match(lines[1], /^\d{4}-\d{2}-01,Opening balance,,,,0\.00$/);
      assert.match(lines[2], new RegExp(`,Deposit,${first},Arrived in full\\.; USDT \\(TRC20\\),100\\.00,100\\.00$`));
      assert.match(lines[3], /^\d{4}-\d{2}-\d{2},Closing balance,,,,100\.00$/);
      assert.equal(lines.length, 4);

      // The dashboard: one day of activity is the balance as a figure with its date (no chart of
      // one point), nothing pending.
      await page.goto(url('/my-account'));
      await heading(page, 'Welcome, Hana').waitFor();
      await page.getByTestId('balance-single').getByText('$100.00').waitFor();
      assert.equal(await page.getByTestId('balance-chart').count(), 0, 'no chart of a single point');
      await page.getByText('Nothing is waiting for a decision.').waitFor();
      const figure = page.locator('.figure').filter({ hasText: 'Available balance' });
      await figure.getByText('$100.00').waitFor();
      await expectAccessible(page, '/my-account (charts)');

      // A second deposit shows as pending, and staff confirming it updates the page in place.
      await page.evaluate(() => {
        globalThis.__sameDocument = true;
      });
      const second = await deposit(page, '50');
      const pendingPanel = page.getByTestId('pending-panel');
      await pendingPanel.getByRole('link', { name: second }).waitFor();
      await confirm(staff.page, second, '50');
      await figure.getByText('$150.00').waitFor();
      await page.getByText('Nothing is waiting for a decision.').waitFor();
      assert.equal(await page.evaluate(() => globalThis.__sameDocument), true, 'the dashboard updated without a reload');

      // On a phone, both pages fit the screen; the history reads as on a desktop.
      await page.setViewportSize({ width: 375, height: 740 });
      for (const [path, title, shown] of [
        ['/my-account', 'Welcome, Hana', '$150.00'],
        ['/transaction-History', 'Transaction History', '+$50.00'],
      ]) {
        await page.goto(url(path));
        await heading(page, title).waitFor();
        await page.getByText(shown).first().waitFor();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} is ${overflow}px wider than a 375px screen`);
        await expectAccessible(page, `${path} (phone)`);
      }
    } finally {
      await investor.context.close();
      await staff.context.close();
    }
    assert.deepEqual([...investor.problems, ...staff.problems], [], 'no uncaught errors or CSP violations in the pages');
  });
});
