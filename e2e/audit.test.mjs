// The admins' audit screens in a real browser against a running server: the demo admin confirms
// an investor's deposit, then opens Audit from the staff navigation and reads the confirmation in
// the audit log (with its reference, the investor and the reason), downloads the log as CSV, opens
// the investor's account stream in the event browser with its metadata, and reads the books: the
// reconciliation is zero and highlighted, on a phone as on a desktop. Axe passes on each tab. Same
// environment as approvals.test.mjs (E2E_BASE_URL, E2E_MAIL_DIR, the demo admin, CHROMIUM_PATH);
// E2E_SCREENSHOT_DIR, when set, receives phone and desktop screenshots of each tab.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import { adminCredentials, api, button, expectAccessible, heading, login, requestDeposit, screenshotSizes, signUpVerified, uniqueEmail, withSuiteBrowser } from './flows.mjs';

describe(`audit screens against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('an admin finds a deposit confirmation in the audit log, downloads it, browses its events and sees the books reconcile', async () => {
    const admin = adminCredentials();
    const investor = await flows.freshBrowser(suite.browser);
    const staff = await flows.freshBrowser(suite.browser, { acceptDownloads: true });
    try {
      const email = uniqueEmail('audit-investor');
      await signUpVerified(investor.page, { email, name: 'Aubrey Audit' });
      const me = await api(investor.page, 'GET', '/api/users/getUser');
      const deposit = await requestDeposit(investor.page, '125');
      await login(staff.page, admin.email, admin.password);
      const confirmed = await api(staff.page, 'PATCH', '/api/payments/confirmPayment', {
        transactionId: deposit.transactionId,
        amount: '125',
        notes: 'Checked on chain',
      });
      assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));

      // From the staff navigation to the audit log, filtered to the investor.
      await staff.page.getByRole('link', { name: 'Audit', exact: true }).first().click();
      await heading(staff.page, 'Audit').waitFor();
      await staff.page.getByLabel('Target user').fill(email);
      await button(staff.page, 'Apply filters').click();
      const row = staff.page.getByTestId('audit-log').locator('tr[data-kind="account.deposit_confirmed"]').filter({ hasText: email });
      await row.getByText('Checked on chain').waitFor();
      await row.getByText(email).waitFor();
      await row.getByText('Confirmed deposit').waitFor();
      await expectAccessible(staff.page, '/audit (log)');
      await screenshotSizes(staff.page, 'audit-log');

      // The CSV of the same filters.
      const [download] = await Promise.all([staff.page.waitForEvent('download'), staff.page.getByTestId('audit-csv').click()]);
      assert.equal(download.suggestedFilename(), 'clearvest-audit-log.csv');
      const csv = await readFile(await download.path(), 'utf8');
      assert.match(csv, /^Time \(UTC\),Actor,/);
      assert.ok(csv.includes('Checked on chain') && csv.includes(email), csv);

      // On a phone the log is a list of cards, each cell under its column's name.
      await staff.page.setViewportSize({ width: 375, height: 812 });
      assert.equal(await row.evaluate((tr) => getComputedStyle(tr).display), 'block');
      await staff.page.setViewportSize({ width: 1280, height: 900 });

      // The investor's account stream, with the metadata of the confirmation.
      await staff.page.getByRole('tab', { name: 'Events' }).click();
      await staff.page.getByLabel('Stream id').fill(`account-${me.body._id}`);
      await button(staff.page, 'Show events').click();
      const event = staff.page.getByTestId('audit-events').locator('li[data-type="account.deposit_confirmed"]').filter({ hasText: me.body._id });
      await event.locator('summary').click();
      await event.getByText('Correlation id').waitFor();
      await event.getByText('Checked on chain', { exact: false }).waitFor();
      await expectAccessible(staff.page, '/audit (events)');
      await screenshotSizes(staff.page, 'audit-events');

      // The books: balanced and reconciled, highlighted.
      await staff.page.getByRole('tab', { name: 'Books' }).click();
      const reconciliation = staff.page.getByTestId('audit-reconciliation');
      await reconciliation.getByText('Reconciled: the difference is zero.').waitFor();
      assert.equal(await reconciliation.getAttribute('data-reconciled'), 'true');
      assert.match(await reconciliation.getAttribute('class'), /panel--success/);
      await staff.page.getByText('Debits equal credits.').waitFor();
      await expectAccessible(staff.page, '/audit (books)');
      await screenshotSizes(staff.page, 'audit-books');
      await staff.page.setViewportSize({ width: 375, height: 812 });
      await expectAccessible(staff.page, '/audit (books, phone)');

      // An investor has no way in: the page is not theirs and the server refuses.
      const refused = await flows.allowConsoleErrors(investor, () => api(investor.page, 'GET', '/api/audit/books'));
      assert.equal(refused.status, 403);
      await investor.page.goto(url('/my-account'));
      assert.equal(await investor.page.getByRole('link', { name: 'Audit', exact: true }).count(), 0);

      assert.deepEqual(staff.problems, []);
      assert.deepEqual(investor.problems, []);
    } finally {
      await investor.context.close();
      await staff.context.close();
    }
  });
});
