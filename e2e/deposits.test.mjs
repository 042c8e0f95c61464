// Deposits end to end in a real browser against a running server: an investor says they sent
// USDT to the deposit address, staff confirm what arrived with a note, the investor is e-mailed
// and their dashboard shows the credited balance. What arrived is within the tolerance of what
// they declared (a larger difference needs a second staff member: approvals.test.mjs). Same
// environment as identity.test.mjs (E2E_BASE_URL, E2E_MAIL_DIR, the demo admin from E2E_ADMIN_EMAIL/E2E_ADMIN_PASSWORD or
// demo-logins.txt, CHROMIUM_PATH). The server needs a USDT/TRC20 deposit address: a development
// server has example addresses when CLEARVEST_DEPOSIT_ADDRESSES is empty.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import { adminCredentials, button, expectAccessible, heading, mailMark, signIn, signUpVerified, toast, uniqueEmail, waitForMail, withSuiteBrowser } from './flows.mjs';

describe(`deposits against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('records a deposit, staff confirm it with a note, and the dashboard shows the credit', async () => {
    const admin = adminCredentials();
    const email = uniqueEmail('deposit');
    const txHash = `0x${randomBytes(32).toString('hex')}`;
    const investor = await flows.freshBrowser(suite.browser);
    const staff = await flows.freshBrowser(suite.browser);
    try {
      const { page } = investor;
      let mark;
      await signUpVerified(page, { email, name: 'Dee Positor' });

      // The deposit page: choose USDT on TRON, see the address and its QR code, send.
      await page.goto(url('/deposit-payment'));
      await heading(page, 'Fund Wallet').waitFor();
      await page.getByLabel('Asset and network').selectOption({ label: 'USDT on TRON (TRC-20)' });
      const address = page.getByTestId('deposit-address');
      await address.getByRole('img', { name: /QR code/ }).waitFor();
      await address.getByRole('button', { name: 'Copy address' }).waitFor();
      await expectAccessible(page, '/deposit-payment');
      await page.getByLabel('Amount in US dollars').fill('250');
      await page.getByLabel(/Transaction hash/).fill(txHash);
      await button(page, 'Confirm deposit').click();
      const transactionId = (await page.getByTestId('transaction-id').textContent()).trim();
      assert.match(transactionId, /^DEP-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
      assert.equal(await page.getByTestId('deposit-status').textContent(), 'Pending');
      await page.getByText(/Going to your dashboard in \d s/).waitFor();
      await expectAccessible(page, '/deposit-payment (recorded)');
      // The countdown ends on the dashboard.
      await heading(page, 'Welcome, Dee').waitFor();

      // Staff find it in the queue, oldest first, and confirm what arrived.
      await signIn(staff.page, admin.email, admin.password);
      await staff.page.goto(url('/admin-pending-deposit'));
      await heading(staff.page, 'Pending Deposits').waitFor();
      const item = staff.page.getByTestId('deposit-queue-item').filter({ hasText: transactionId });
      await item.getByText(/^waiting /).waitFor();
      await expectAccessible(staff.page, '/admin-pending-deposit');
      await item.getByRole('link', { name: transactionId }).click();
      await heading(staff.page, 'Payment Details').waitFor();
      await staff.page.getByText(email, { exact: false }).waitFor();
      await expectAccessible(staff.page, '/transaction/:transactionId');
      await staff.page.getByLabel('Amount received (USD)').fill('248.00');
      await staff.page.getByLabel(/Notes/).fill('Arrived less the network fee.');
      mark = await mailMark();
      await button(staff.page, 'Confirm payment').click();
      await toast(staff.page, 'Payment successfully confirmed!').waitFor();
      await staff.page.getByTestId('deposit-status').getByText('Confirmed').waitFor();

      // The investor is e-mailed, and the dashboard shows the credited balance.
      const mail = await waitForMail(email, { mark, subject: /was confirmed/ });
      assert.match(mail.subject, new RegExp(transactionId));
      assert.match(mail.text, /\$248\.00 was added/);
      assert.match(mail.text, /Arrived less the network fee\./);
      await page.goto(url('/my-account'));
      const figure = page.locator('.figure').filter({ hasText: 'Available balance' });
      await figure.getByText('$248.00').waitFor();
    } finally {
      await investor.context.close();
      await staff.context.close();
    }
    assert.deepEqual([...investor.problems, ...staff.problems], [], 'no uncaught errors or CSP violations in the pages');
  });
});
