// The admins' settings end to end in a real browser against a running server: an admin changes
// the withdrawal fee schedule in the console (form, reason, confirm step showing old → new), the
// change shows in the section's history, and the investor's withdrawal form quotes the new fee at
// once, without a restart. The fee is the server's for everyone, so this file runs alone after
// the others (scripts/test.sh) and puts the published schedule back at its end.
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
  signIn,
  signUpVerified,
  toast,
  uniqueEmail,
  until,
  uploadIdentity,
  withSuiteBrowser,
} from './flows.mjs';

const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const PHONE = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true };

describe(`settings against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('a fee schedule changed in the console is the next withdrawal quote', async () => {
    const admin = adminCredentials();
    const investor = await flows.freshBrowser(suite.browser, PHONE);
    const staff = await flows.freshBrowser(suite.browser);
    try {
      const { page } = investor;
      await signUpVerified(page, { email: uniqueEmail('settings'), name: 'Fee Watcher' });
      const me = await api(page, 'GET', '/api/users/getUser');
      assert.equal(await uploadIdentity(page), 200);
      await signIn(staff.page, admin.email, admin.password);
      assert.equal((await api(staff.page, 'PATCH', `/api/users/kyc/${me.body._id}/approve`, {})).status, 200);
      await confirmedDeposit(page, staff.page, '250');
      // The page reads the balance once when it opens: wait until the books show the deposit.
      await until(page, '/api/users/getUser', (user) => user.balance === '250.00');

      // Before: the published schedule, 1% + $1.00 on $100.00.
      const quoteOf = async () => {
        await page.goto(url('/withdraw-wallet'));
        await heading(page, 'Withdraw').waitFor();
        await page.getByTestId('withdraw-available').getByText('$250.00').waitFor();
        await page.getByLabel('Amount in US dollars').fill('100');
        await page.getByLabel('Network').selectOption({ label: 'USDT on TRON (TRC-20)' });
        await page.getByLabel('Your wallet address').fill(TRON_ADDRESS);
        await button(page, 'Continue').click();
        const summary = page.getByTestId('withdraw-summary');
        await summary.waitFor();
        return (await summary.textContent()).trim();
      };
      assert.equal(await quoteOf(), 'You will receive $98.00 after a $2.00 fee.');

      // The admin changes it in the console: 2% + $0.50, no cap.
      const adminPage = staff.page;
      await adminPage.goto(url('/settings'));
      await heading(adminPage, 'Settings').waitFor();
      await expectAccessible(adminPage, '/settings');
      const fee = adminPage.getByTestId('settings-withdrawalFee');
      await fee.getByLabel('Percentage of the amount').fill('2');
      await fee.getByLabel('Flat fee').fill('0.50');
      await fee.getByLabel(/^Cap/).fill('');
      await button(fee, 'Review the change').click();
      // Without a reason the form asks for one.
      await fee.getByText('Please give a reason of at least 3 characters.').waitFor();
      await fee.getByLabel('Reason').fill('Network fees went up');
      await button(fee, 'Review the change').click();
      const confirm = adminPage.getByTestId('withdrawalFee-confirm');
      await confirm.waitFor();
      const text = await confirm.textContent();
      assert.match(text, /1\s*%\s*→\s*2\s*%/);
      assert.match(text, /\$1\.00\s*→\s*\$0\.50/);
      assert.match(text, /\$25\.00\s*→\s*none/);
      await expectAccessible(adminPage, '/settings (confirm)');
      await button(confirm, 'Confirm and save').click();
      await toast(adminPage, 'The change is in force.').waitFor();
      await fee.getByTestId('withdrawalFee-last').getByText(/Last changed/).waitFor();
      await fee.getByText(/^History \(1 change\)/).click();
      await fee.getByTestId('withdrawalFee-history').getByText('Reason: Network fees went up').waitFor();

      // After: the investor's next quote uses it, no restart.
      assert.equal(await quoteOf(), 'You will receive $97.50 after a $2.50 fee.');
      await expectAccessible(page, '/withdraw-wallet (new fee)');
    } finally {
      // The published schedule again, for whatever runs next on this server.
      await api(staff.page, 'PUT', '/api/settings/withdrawalFee', {
        reason: 'Back to the published schedule after the test',
        withdrawalFee: { percent: '1', flat: '1.00', minimum: '10.00', cap: '25.00' },
      });
      await investor.context.close();
      await staff.context.close();
    }
  });
});
