// The money forms and the one pattern of errors and feedback, in a real browser against a running
// server, on a phone and on a desktop: the withdrawal form shows the fee schedule before Continue
// and refuses more than the balance on the amount field (which takes the focus); the deposit form
// works one amount out from the other at the market rate, or asks both without one; a deposit
// cannot be rejected without a reason, and with one the investor sees it; one toast at a time;
// dialog buttons in view on a 375×812 screen; no console errors while signed in (flows.mjs checks
// every test for them; the refused withdrawal is the one failed request allowed); axe finds
// nothing. Same environment as deposits.test.mjs (E2E_BASE_URL, E2E_MAIL_DIR, the demo admin,
// CHROMIUM_PATH).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import {
  adminCredentials,
  api,
  button,
  confirmedDeposit,
  expectAccessible,
  heading,
  requestDeposit,
  signIn,
  signUpVerified,
  toast,
  uniqueEmail,
  uploadIdentity,
} from './flows.mjs';

const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const PHONE = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true };
const DESKTOP = { viewport: { width: 1280, height: 900 } };

// The element lies entirely inside the viewport.
async function inView(page, locator) {
  const box = await locator.boundingBox();
  const { width, height } = page.viewportSize();
  return box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= height && box.x + box.width <= width;
}

for (const [device, options] of [
  ['phone', PHONE],
  ['desktop', DESKTOP],
]) {
  describe(`money forms on a ${device} against ${BASE_URL}`, () => {
    const suite = flows.withSuiteBrowser();

    it('withdrawal fees before Continue, field errors with focus, one-amount or two-amount deposits, a reasoned rejection, a quiet console', async () => {
      const admin = adminCredentials();
      const email = uniqueEmail(`forms-${device}`);
      const investor = await flows.freshBrowser(suite.browser, options);
      // Staff decide on a phone-sized screen: the dialog's buttons must stay in view there.
      const staff = await flows.freshBrowser(suite.browser, PHONE);
      try {
        const { page } = investor;
        await signUpVerified(page, { email, name: 'Fran Former' });
        const me = await api(page, 'GET', '/api/users/getUser');
        assert.equal(await uploadIdentity(page), 200);
        await signIn(staff.page, admin.email, admin.password);
        assert.equal((await api(staff.page, 'PATCH', `/api/users/kyc/${me.body._id}/approve`, {})).status, 200);
        await confirmedDeposit(page, staff.page, '120');

        // Withdrawal: the schedule is on the form, above Continue.
        await page.goto(url('/withdraw-wallet'));
        await heading(page, 'Withdraw').waitFor();
        const fees = page.getByTestId('withdraw-fee-schedule');
        await fees.waitFor();
        assert.match(await page.getByTestId('withdraw-fee-rule').textContent(), /1% \+ \$1\.00/);
        assert.equal(await page.getByTestId('withdraw-minimum-rule').textContent(), 'The minimum withdrawal is $10.00.');
        const continueButton = button(page, 'Continue');
        assert.ok((await fees.boundingBox()).y < (await continueButton.boundingBox()).y, 'the fee schedule comes before Continue');
        await expectAccessible(page, `/withdraw-wallet (${device})`);

        // More than the balance: refused on the amount field, which takes the focus.
        const amount = page.getByLabel('Amount in US dollars');
        await amount.fill('5000');
        await page.getByLabel('Your wallet address').fill(TRON_ADDRESS);
        // The refusal (422) is a deliberate bad input: its failed request is allowed.
        await flows.allowConsoleErrors(investor, async () => {
          await continueButton.click();
          await page.waitForFunction(() => document.activeElement?.getAttribute('aria-invalid') === 'true');
        });
        assert.equal(await amount.getAttribute('aria-invalid'), 'true');
        assert.equal(await amount.evaluate((el) => el === document.activeElement), true);
        const describedBy = (await amount.getAttribute('aria-describedby')).split(' ')[0];
        assert.match(await page.locator(`[id="${describedBy}"]`).textContent(), /Insufficient balance/);
        await expectAccessible(page, `/withdraw-wallet over the balance (${device})`);

        // Within the balance: the fee and what arrives, before confirming.
        await amount.fill('100');
        await continueButton.click();
        assert.equal(await page.getByTestId('withdraw-fee').textContent(), '$2.00');
        assert.equal(await page.getByTestId('withdraw-receives').textContent(), '$98.00');
        assert.match(await page.getByTestId('withdraw-minimum').textContent(), /Minimum withdrawal \$10\.00 · A rule, not a charge/);

        // Deposit: the network's facts, a QR code of a sensible size, and the amounts.
        await page.goto(url('/deposit-payment'));
        await heading(page, 'Fund Wallet').waitFor();
        await page.getByLabel('Asset and network').selectOption({ label: 'BTC on Bitcoin' });
        const facts = page.getByTestId('deposit-facts');
        assert.equal(await facts.getByTestId('deposit-minimum').textContent(), '$10.00');
        assert.match(await facts.textContent(), /2 confirmations on Bitcoin/);
        const qr = await page.getByRole('img', { name: /QR code/ }).boundingBox();
        assert.ok(qr.width >= 150 && qr.width <= 180, `QR code ${qr.width} px wide`);
        const rate = page.getByTestId('deposit-rate');
        await rate.or(page.getByLabel('Amount of BTC you sent')).first().waitFor();
        if (await rate.isVisible()) {
          // A rate is known: one amount, the other worked out, with the rate and its age.
          assert.match(await rate.textContent(), /^1 BTC = \$[\d,]+(\.\d+)? · /);
          await page.getByLabel('Amount in US dollars').fill('100');
          assert.match(await page.getByTestId('deposit-conversion').textContent(), /That is \d+\.\d{8} BTC/);
        } else {
          // No rate source: both amounts are asked.
          await page.getByLabel('Amount in US dollars').waitFor();
          await page.getByLabel('Amount of BTC you sent').waitFor();
        }
        await expectAccessible(page, `/deposit-payment BTC (${device})`);

        // Copying the address: one confirmation, and a new toast replaces the old one.
        await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
        await button(page, 'Copy address').click();
        const toasts = page.getByRole('region', { name: 'Notifications' }).locator('.toast');
        await toasts.first().waitFor();
        const first = await toasts.first().elementHandle();
        // Copy again at once, long before the first toast would close by itself: it is replaced.
        await button(page, '✓ Copied').click();
        await page.waitForFunction((el) => !el.isConnected, first);
        await toast(page, 'Address copied').waitFor();
        assert.equal(await toasts.count(), 1, 'one toast at a time');

        // A deposit rejected: impossible without a reason; with one, the investor sees it.
        const deposit = await requestDeposit(page, '25');
        await staff.page.goto(url(`/transaction/${deposit.transactionId}`));
        await button(staff.page, 'Reject payment').click();
        const dialog = staff.page.getByRole('dialog', { name: 'Reject this deposit' });
        await dialog.waitFor();
        const reject = dialog.getByRole('button', { name: 'Reject deposit', exact: true });
        assert.ok(await inView(staff.page, reject), 'the dialog’s action is in view at 375×812');
        assert.ok(await inView(staff.page, dialog.getByRole('button', { name: 'Cancel', exact: true })), 'Cancel is in view at 375×812');
        await reject.click();
        const reason = dialog.getByLabel(/Reason/);
        assert.equal(await reason.getAttribute('aria-invalid'), 'true');
        assert.equal(await reason.evaluate((el) => el === document.activeElement), true);
        await dialog.getByText('Please give the reason for rejecting this deposit').waitFor();
        await expectAccessible(staff.page, 'reject deposit dialog without a reason');
        assert.equal((await api(staff.page, 'GET', `/api/payments/viewPaymentStatus/${deposit.transactionId}`)).body.status, 'Pending');
        await reason.fill('Nothing arrived at our address.');
        await reject.click();
        await toast(staff.page, 'Payment rejected.').waitFor();

        await page.goto(url(`/transaction/${deposit.transactionId}`));
        await page.getByTestId('deposit-status').getByText('Rejected').waitFor();
        assert.equal(await page.getByTestId('deposit-notes').textContent(), 'Nothing arrived at our address.');
        await page.getByText('Reason', { exact: true }).waitFor();
        await expectAccessible(page, `rejected deposit for its investor (${device})`);

        assert.equal(investor.allowed.length, 1, `only the refused withdrawal's request failed: ${investor.allowed}`);
        // The rest of both journeys: no console error (checked for every test after it ends).
        assert.deepEqual([...investor.problems, ...staff.problems], [], 'no console errors in the signed-in journeys');
      } finally {
        await investor.context.close();
        await staff.context.close();
      }
    });
  });
}
