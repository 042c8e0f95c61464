// The money history end to end in a real browser against a running server: an investor with a
// confirmed deposit finds it in the transaction history, opens its details, filters, downloads a
// CSV statement and reads it; the dashboard shows the balance chart and, when staff confirm a
// second deposit, updates without a reload (the events stream). Same environment as
// deposits.test.mjs (E2E_BASE_URL, E2E_MAIL_DIR, the demo admin, CHROMIUM_PATH).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import { adminCredentials, api, button, expectAccessible, heading, login, registerVerified, uniqueEmail, withSuiteBrowser } from './flows.mjs';

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
      await registerVerified(page, { email, name: 'Hana History' });
      await login(staff.page, admin.email, admin.password);

      const first = await deposit(page, '100');
      await confirm(staff.page, first, '100');

      // The history: the confirmation on top, with its effect and the balance after it.
      await page.goto(url('/transaction-History'));
      await heading(page, 'Transaction History').waitFor();
      const cards = page.getByTestId('history-card');
      const confirmed = cards.filter({ hasText: 'Deposit confirmed' });
      await confirmed.getByText('+$100.00').waitFor();
      assert.match(await cards.first().textContent(), /Deposit confirmed/);
      assert.equal(await cards.count(), 2);
      await expectAccessible(page, '/transaction-History');

      await confirmed.getByRole('button', { name: /^Details/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Deposit confirmed' });
      await dialog.getByText(first).waitFor();
      await dialog.getByText('Arrived in full.').waitFor();
      await dialog.getByText('Staff decision').waitFor();
      await expectAccessible(page, '/transaction-History (details)');
      await button(dialog, 'Close').click();
      await dialog.waitFor({ state: 'detached' });

      await page.getByLabel('Type', { exact: true }).selectOption('Withdrawal');
      await page.getByText('No transactions match these filters yet.').waitFor();
      await page.getByLabel('Type', { exact: true }).selectOption('Transaction');
      await confirmed.waitFor();

      // The statement of this month, read from the file the browser saved.
      const [download] = await Promise.all([page.waitForEvent('download'), button(page, 'Download statement (CSV)').click()]);
      assert.match(download.suggestedFilename(), /^clearvest-statement-\d{4}-\d{2}-01-to-\d{4}-\d{2}-\d{2}\.csv$/);
      const rows = (await readFile(await download.path(), 'utf8')).trimEnd().split('\r\n');
      assert.equal(rows[0], 'Date (UTC),Type,Status,Title,Reference,Amount,Fee,Effect,Balance after,Notes,Details');
      assert.match(rows[1], /^\d{4}-\d{2}-01,,,Opening balance,,,,,0\.00,,$/);
      assert.match(rows[2], new RegExp(`,Transaction,Confirmed,Deposit requested,${first},100\\.00,0\\.00,0\\.00,0\\.00,,`));
      assert.match(rows[3], new RegExp(`,Transaction,Confirmed,Deposit confirmed,${first},100\\.00,0\\.00,100\\.00,100\\.00,Arrived in full\\.,`));
      assert.match(rows[4], /^\d{4}-\d{2}-\d{2},,,Closing balance,,,,,100\.00,,$/);
      assert.equal(rows.length, 5);

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
      const pending = page.getByTestId('pending-panel');
      await pending.getByRole('link', { name: second }).waitFor();
      await confirm(staff.page, second, '50');
      await figure.getByText('$150.00').waitFor();
      await page.getByText('Nothing is waiting for a decision.').waitFor();
      assert.equal(await page.evaluate(() => globalThis.__sameDocument), true, 'the dashboard updated without a reload');

      // On a phone, both pages fit the screen.
      await page.setViewportSize({ width: 375, height: 740 });
      for (const [path, title] of [
        ['/my-account', 'Welcome, Hana'],
        ['/transaction-History', 'Transaction History'],
      ]) {
        await page.goto(url(path));
        await heading(page, title).waitFor();
        await page.getByText('$150.00').first().waitFor();
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
