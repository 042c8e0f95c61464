// Referrals end to end in a real browser against a running server: an investor copies their
// referral link, a friend registers through it, staff confirm the friend's first deposit, and the
// referrer's page shows the friend qualified while their dashboard shows the bonus. Same
// environment as deposits.test.mjs; the server runs with the default bonus ($5.00).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import { adminCredentials, button, expectAccessible, heading, mailMark, register, registerVerified, signIn, signUpVerified, toast, uniqueEmail, waitForMail, withSuiteBrowser } from './flows.mjs';

// The bonus is credited by a background reactor: pages are read again until it shows, at most
// this long.
const CREDIT_TIMEOUT_MS = 20_000;

async function untilShown(page, path, locator) {
  const deadline = Date.now() + CREDIT_TIMEOUT_MS;
  for (;;) {
    await page.goto(url(path));
    try {
      await locator().waitFor({ timeout: 1_000 });
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${path} did not show the bonus within ${CREDIT_TIMEOUT_MS / 1000} s`, { cause: error });
    }
  }
}

describe(`referrals against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('a friend registers through the referral link, their first deposit is confirmed, and the referrer earns $5.00', async () => {
    const admin = adminCredentials();
    const referrerEmail = uniqueEmail('referrer');
    const friendEmail = uniqueEmail('friend');
    const referrer = await flows.freshBrowser(suite.browser, { viewport: { width: 375, height: 740 } });
    const friend = await flows.freshBrowser(suite.browser);
    const staff = await flows.freshBrowser(suite.browser);
    try {
      // The referrer signs up and finds their code and link.
      let mark;
      await signUpVerified(referrer.page, { email: referrerEmail, name: 'Rita Referrer' });
      await referrer.page.goto(url('/referrals'));
      await heading(referrer.page, 'Referrals').waitFor();
      await referrer.page.getByRole('heading', { name: 'Refer a friend and earn up to $5' }).waitFor();
      await referrer.page.getByText(/^No referrals yet\./).waitFor();
      const code = (await referrer.page.getByTestId('referral-code').textContent()).trim();
      const link = (await referrer.page.getByTestId('referral-link').textContent()).trim();
      assert.ok(link.endsWith(`/register?ref=${encodeURIComponent(code)}`), `link ${link} names the code ${code}`);
      await expectAccessible(referrer.page, '/referrals (empty, phone)');

      // The friend opens the link: the code is filled in; they register with it.
      const path = new URL(link).pathname + new URL(link).search;
      await friend.page.goto(url(path));
      await heading(friend.page, 'Create an Account').waitFor();
      assert.equal(await friend.page.getByLabel(/Referral code/).inputValue(), code);
      await registerVerified(friend.page, { email: friendEmail, name: 'Bea Friend', referral: code });

      // The referrer sees the friend, not yet qualified.
      await referrer.page.goto(url('/referrals'));
      const item = referrer.page.getByTestId('referral-item').filter({ hasText: 'Bea Friend' });
      await item.getByText('Not qualified yet').waitFor();

      // The friend declares a deposit; staff confirm it.
      await friend.page.goto(url('/deposit-payment'));
      await heading(friend.page, 'Fund Wallet').waitFor();
      await friend.page.getByLabel('Asset and network').selectOption({ label: 'USDT on TRON (TRC-20)' });
      await friend.page.getByLabel('Amount in US dollars').fill('100');
      await button(friend.page, 'Confirm deposit').click();
      const transactionId = (await friend.page.getByTestId('transaction-id').textContent()).trim();

      await signIn(staff.page, admin.email, admin.password);
      await staff.page.goto(url(`/transaction/${transactionId}`));
      await heading(staff.page, 'Payment Details').waitFor();
      await staff.page.getByLabel('Amount received (USD)').fill('100');
      mark = await mailMark();
      await button(staff.page, 'Confirm payment').click();
      await toast(staff.page, 'Payment successfully confirmed!').waitFor();

      // The reactor credits the referrer in the background and e-mails them.
      const mail = await waitForMail(referrerEmail, { mark, subject: /referral bonus/ });
      assert.equal(mail.subject, 'You earned a $5.00 referral bonus');

      await untilShown(referrer.page, '/referrals', () =>
        referrer.page.getByTestId('referral-item').filter({ hasText: 'Bea Friend' }).getByText('Qualified', { exact: true }),
      );
      await item.getByText('+$5.00 earned').waitFor();
      assert.equal(await referrer.page.getByTestId('referral-total').textContent(), '$5.00');
      await expectAccessible(referrer.page, '/referrals (qualified, phone)');
      await referrer.page.setViewportSize({ width: 1280, height: 800 });
      await expectAccessible(referrer.page, '/referrals (qualified, desktop)');

      await referrer.page.goto(url('/my-account'));
      const figure = referrer.page.locator('.figure').filter({ hasText: 'Available balance' });
      await figure.getByText('$5.00').waitFor();
    } finally {
      await referrer.context.close();
      await friend.context.close();
      await staff.context.close();
    }
    assert.deepEqual([...referrer.problems, ...friend.problems, ...staff.problems], [], 'no uncaught errors or CSP violations in the pages');
  });
});
