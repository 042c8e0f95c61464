// Withdrawals end to end in a real browser against a running server: an investor with a
// confirmed deposit asks to withdraw on a phone, sees the fee and what they will receive before
// confirming, staff pay it out and approve it with the transaction hash, the investor is e-mailed
// and their dashboard shows the balance less exactly the amount withdrawn. Same environment as
// deposits.test.mjs (E2E_BASE_URL, E2E_MAIL_DIR, the demo admin, CHROMIUM_PATH); the fee is the
// default schedule (CLEARVEST_WITHDRAWAL_FEE unset): 1% + $1.00.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import {
  adminCredentials,
  api,
  button,
  confirmItsMe,
  expectAccessible,
  heading,
  mailMark,
  signIn,
  signUpVerified,
  toast,
  uniqueEmail,
  uploadIdentity,
  waitForMail,
  withSuiteBrowser,
} from './flows.mjs';

// A published example TRON address (the development deposit address's network), never to be paid.
const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const PHONE = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true };

describe(`withdrawals against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('withdraws from a confirmed deposit, staff approve with the payout hash, and the balance drops exactly', async () => {
    const admin = adminCredentials();
    const email = uniqueEmail('withdraw');
    const payoutHash = `0x${randomBytes(32).toString('hex')}`;
    const investor = await flows.freshBrowser(suite.browser, PHONE);
    const staff = await flows.freshBrowser(suite.browser);
    try {
      const { page } = investor;
      let mark;
      await signUpVerified(page, { email, name: 'Wyn Drawer' });
      // A withdrawal needs an approved identity check (its pages have their own test).
      const me = await api(page, 'GET', '/api/users/getUser');
      assert.equal(await uploadIdentity(page), 200);
      await signIn(staff.page, admin.email, admin.password);
      assert.equal((await api(staff.page, 'PATCH', `/api/users/kyc/${me.body._id}/approve`, {})).status, 200);

      // $250.00 arrives by a deposit staff confirm.
      await page.goto(url('/deposit-payment'));
      await heading(page, 'Fund Wallet').waitFor();
      await page.getByLabel('Asset and network').selectOption({ label: 'USDT on TRON (TRC-20)' });
      await page.getByLabel('Amount in US dollars').fill('250');
      await button(page, 'Confirm deposit').click();
      const transactionId = (await page.getByTestId('transaction-id').textContent()).trim();
      await staff.page.goto(url(`/transaction/${transactionId}`));
      await staff.page.getByLabel('Amount received (USD)').fill('250');
      await button(staff.page, 'Confirm payment').click();
      await toast(staff.page, 'Payment successfully confirmed!').waitFor();

      // The withdrawal, on a phone: a bad address is caught when the field loses focus, then
      // the confirmation shows the fee and what arrives.
      await page.goto(url('/withdraw-wallet'));
      await heading(page, 'Withdraw').waitFor();
      await page.getByTestId('withdraw-available').getByText('$250.00').waitFor();
      await expectAccessible(page, '/withdraw-wallet');
      await page.getByLabel('Amount in US dollars').fill('100');
      await page.getByLabel('Network').selectOption({ label: 'USDT on TRON (TRC-20)' });
      const address = page.getByLabel('Your wallet address');
      await address.fill(`${TRON_ADDRESS.slice(0, -1)}u`);
      // The bad address is refused by the server's quote (400) on purpose.
      await flows.allowConsoleErrors(investor, async () => {
        await address.blur();
        await page.getByText('Please enter a valid TRON address').waitFor();
      });
      await expectAccessible(page, '/withdraw-wallet (bad address)');
      await address.fill(TRON_ADDRESS);
      await button(page, 'Continue').click();
      const summary = page.getByTestId('withdraw-summary');
      await summary.waitFor();
      assert.equal((await summary.textContent()).trim(), 'You will receive $98.00 after a $2.00 fee.');
      await expectAccessible(page, '/withdraw-wallet (confirm)');
      mark = await mailMark();
      // The withdrawal needs the person, not just the session: the page asks for the password
      // before it sends the request (GET /api/users/step-up), so the request goes through once,
      // never refused with a 403 the browser would log.
      await button(page, 'Confirm withdrawal').click();
      await page.getByRole('dialog', { name: "Confirm it's you" }).waitFor();
      await confirmItsMe(page, { where: '/withdraw-wallet (confirm it is you)' });
      assert.equal(investor.allowed.length, 1, `only the bad address: ${investor.allowed}`);
      await toast(page, 'Withdrawal requested').waitFor();
      await page.getByText(/Going to your dashboard in \d s/).waitFor();
      const withdrawalPath = new URL(await page.getByRole('link', { name: 'See this withdrawal' }).getAttribute('href'), BASE_URL).pathname;
      await heading(page, 'Welcome, Wyn').waitFor();
      const requested = await waitForMail(email, { mark, subject: /withdrawal request of \$100\.00/ });
      assert.match(requested.text, /you will receive \$98\.00/);

      // Staff find it in the queue, check it and approve it with the payout transaction.
      await staff.page.goto(url('/admin-pending-wallet'));
      await heading(staff.page, 'Pending Withdrawals').waitFor();
      const item = staff.page.getByTestId('withdrawal-queue-item').filter({ hasText: email });
      await item.getByText(/^waiting /).waitFor();
      await expectAccessible(staff.page, '/admin-pending-wallet');
      await item.getByRole('link').click();
      await heading(staff.page, 'Withdrawal Details').waitFor();
      assert.equal(await staff.page.getByTestId('withdrawal-address').textContent(), TRON_ADDRESS);
      assert.equal(await staff.page.getByTestId('withdrawal-receives').textContent(), '$98.00');
      await staff.page.getByTestId('withdrawal-details').getByText('$150.00').waitFor();
      await expectAccessible(staff.page, '/withdrawal/:id');
      await button(staff.page, 'Approve withdrawal').click();
      const dialog = staff.page.getByRole('dialog', { name: 'Approve withdrawal' });
      await dialog.getByLabel('Payout transaction hash').fill(payoutHash);
      await expectAccessible(staff.page, '/withdrawal/:id (approve dialog)');
      mark = await mailMark();
      await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
      await toast(staff.page, 'Withdrawal approved!').waitFor();
      await staff.page.getByTestId('withdrawal-status').getByText('Approved').waitFor();

      // The investor is e-mailed the hash; their withdrawal reads Approved; the balance is
      // $250.00 less exactly the $100.00 withdrawn (the fee came out of it).
      const approved = await waitForMail(email, { mark, subject: /was approved/ });
      // It names the hash in its network's one form (no 0x on TRON), whatever the staff member pasted.
      assert.ok(approved.text.includes(payoutHash.slice(2)), 'the approval e-mail names the payout transaction');
      assert.match(approved.text, /\$98\.00 was sent/);
      await page.goto(url(withdrawalPath));
      await page.getByTestId('withdrawal-status').getByText('Approved').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Approve withdrawal' }).count(), 0);
      // It goes by its reference, as its rows in the history do; its id stays in the link.
      assert.match(await page.getByTestId('withdrawal-reference').textContent(), /^WDR-[0-9A-HJKMNP-TV-Z]{8}$/);
      await expectAccessible(page, '/withdrawal/:id (investor)');
      await page.goto(url('/my-account'));
      const figure = page.locator('.figure').filter({ hasText: 'Available balance' });
      await figure.getByText('$150.00').waitFor();
    } finally {
      await investor.context.close();
      await staff.context.close();
    }
    assert.deepEqual([...investor.problems, ...staff.problems], [], 'no console errors, uncaught errors or CSP violations in the pages');
  });
});
