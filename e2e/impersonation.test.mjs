// Viewing the site as a user, end to end in a real browser against a running server: the demo
// admin opens an investor's account from the Users tab (confirming it's them first), sees the
// banner on every page, is refused with a clear message when trying to withdraw, exits back to
// their own account, and the investor, signing in, finds the visit in their security log with
// the staff member's role and not their name. Same environment as withdrawals.test.mjs
// (E2E_BASE_URL, E2E_MAIL_DIR, the demo admin, CHROMIUM_PATH).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import {
  adminCredentials,
  api,
  button,
  confirmedDeposit,
  confirmItsMe,
  expectAccessible,
  heading,
  logout,
  registerVerified,
  signIn,
  signUpVerified,
  toast,
  uniqueEmail,
  uploadIdentity,
  withSuiteBrowser,
} from './flows.mjs';

const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const PHONE = { viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true };
const REFUSED = 'You are viewing Clearvest as this user, so changes are disabled. Exit to act as yourself again.';

describe(`viewing as a user against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('an admin views an investor, is refused a withdrawal, exits, and the investor sees the visit', async () => {
    const admin = adminCredentials();
    const email = uniqueEmail('viewed');
    const name = 'Vera Viewed';
    const investor = await flows.freshBrowser(suite.browser);
    const staff = await flows.freshBrowser(suite.browser);
    try {
      // A demo-like investor: verified, identity approved, $250.00 available.
      const { page } = investor;
      await registerVerified(page, { email, name });
      const me = await api(page, 'GET', '/api/users/getUser');
      assert.equal(await uploadIdentity(page), 200);
      await signIn(staff.page, admin.email, admin.password);
      assert.equal((await api(staff.page, 'PATCH', `/api/users/kyc/${me.body._id}/approve`, {})).status, 200);
      await confirmedDeposit(page, staff.page, '250');

      // The admin finds the investor in the Users tab and chooses "View as user".
      const s = staff.page;
      await s.goto(url('/user-profile?tab=users'));
      await s.getByTestId('user-card').first().waitFor();
      await s.getByLabel('Search users by name or e-mail').fill(email);
      // The search answers after a pause; the list then holds only the investor.
      await s.getByTestId('user-card').nth(1).waitFor({ state: 'detached' });
      await s.locator('.user-grid:not([aria-busy])').waitFor();
      const card = s.getByTestId('user-card').filter({ hasText: email });
      await card.getByRole('button', { name: `Actions for ${name}` }).click();
      await card.getByRole('button', { name: 'View as user' }).click();
      const dialog = s.getByRole('dialog', { name: `View Clearvest as ${name}?` });
      await dialog.waitFor();
      await expectAccessible(s, '/user-profile?tab=users (view as user)');
      // It needs the person, not just the session. A staff read of the Users tab still under way
      // when the view starts is refused (403) once the browser holds the view's session: nothing
      // is shown from it, and the page moves on to the investor's dashboard. Only that refusal is
      // allowed here.
      await flows.allowConsoleErrors(staff, async () => {
        await dialog.getByRole('button', { name: `View as ${name}` }).click();
        await confirmItsMe(s, { password: admin.password, where: '/user-profile (confirm it is you)' });
        await toast(s, `You are now viewing Clearvest as ${name}.`).waitFor();
        await heading(s, 'Welcome, Vera').waitFor();
      });
      const refusals = staff.allowed.filter((e) => !/403 \(Forbidden\) \(http[^)]*\/api\/users\/listUsers\?/.test(e));
      assert.deepEqual(refusals, [], 'only a refused staff read of the user list while the view starts');
      const banner = s.getByTestId('impersonation-banner');
      await banner.getByText(`You are viewing Clearvest as ${name}. Changes are disabled.`).waitFor();
      await expectAccessible(s, '/my-account (viewing as the investor)');

      // Every page carries the banner; the withdrawal is refused with the reason on screen.
      await s.goto(url('/withdraw-wallet'));
      await heading(s, 'Withdraw').waitFor();
      await banner.waitFor();
      await s.getByTestId('withdraw-available').getByText('$250.00').waitFor();
      await s.getByLabel('Amount in US dollars').fill('100');
      await s.getByLabel('Network').selectOption({ label: 'USDT on TRON (TRC-20)' });
      await s.getByLabel('Your wallet address').fill(TRON_ADDRESS);
      await button(s, 'Continue').click();
      await s.getByTestId('withdraw-summary').waitFor();
      // The refusal is a 403, which the browser logs.
      await flows.allowConsoleErrors(staff, async () => {
        await button(s, 'Confirm withdrawal').click();
        await s.getByTestId('withdraw-confirm').getByText(REFUSED).waitFor();
      });
      // No step-up was asked for: nothing is sent that could go through.
      assert.equal(await s.getByRole('dialog', { name: "Confirm it's you" }).count(), 0);
      await expectAccessible(s, '/withdraw-wallet (refused while viewing)');

      // The profile has the Exit Impersonation tab; the banner's Exit goes back to the admin.
      await s.goto(url('/user-profile'));
      await s.getByRole('tab', { name: 'Exit Impersonation' }).click();
      await s.getByRole('heading', { name: 'Exit impersonation' }).waitFor();
      await expectAccessible(s, '/user-profile?tab=exit-impersonation');
      await banner.getByRole('button', { name: 'Exit', exact: true }).click();
      await toast(s, 'You are back in your own account.').waitFor();
      await banner.waitFor({ state: 'detached' });
      await s.getByTestId('user-card').first().waitFor();
      const back = await api(s, 'GET', '/api/users/getUser');
      assert.equal(back.body.email, admin.email);
      assert.equal(back.body.isImpersonated, false);
      // Nothing was withdrawn.
      const figures = await api(s, 'GET', `/api/users/getUsers?search=${encodeURIComponent(email)}`);
      assert.equal(figures.body[0].figures.balance, '250.00');

      // The investor signs in again and finds the visit in their security log: when, and the
      // staff member's role, not their name.
      await logout(page);
      await signIn(page, email, flows.PASSWORD);
      await page.goto(url('/user-profile?tab=security'));
      const entry = page.locator('.list-item').filter({ hasText: 'A staff member (Administrator) viewed your account' });
      await entry.waitFor();
      // The identity check's approval names its reviewer; the visit does not.
      assert.doesNotMatch(await entry.textContent(), /Demo Admin/);
      await entry.locator('time').waitFor();
      await expectAccessible(page, '/user-profile?tab=security (after the visit)');
    } finally {
      await investor.context.close();
      await staff.context.close();
    }
    assert.equal(staff.allowed.length, 1, `only the refused withdrawal: ${staff.allowed}`);
    assert.deepEqual([...investor.problems, ...staff.problems], [], 'no console errors, uncaught errors or CSP violations in the pages');
  });

  it('the banner and its Exit work on a phone', async () => {
    const admin = adminCredentials();
    const email = uniqueEmail('viewed-phone');
    const investor = await flows.freshBrowser(suite.browser);
    const staff = await flows.freshBrowser(suite.browser, PHONE);
    try {
      await signUpVerified(investor.page, { email, name: 'Phil Phone' });
      const s = staff.page;
      await signIn(s, admin.email, admin.password);
      const found = await api(s, 'GET', `/api/users/getUsers?search=${encodeURIComponent(email)}`);
      assert.equal((await api(s, 'POST', '/api/users/step-up', { password: admin.password })).status, 200);
      assert.equal((await api(s, 'POST', `/api/users/impersonate/${found.body[0]._id}`)).status, 200);
      await s.goto(url('/my-account'));
      await heading(s, 'Welcome, Phil').waitFor();
      const banner = s.getByTestId('impersonation-banner');
      await banner.getByText('You are viewing Clearvest as Phil Phone. Changes are disabled.').waitFor();
      await expectAccessible(s, '/my-account (viewing, phone)');
      await banner.getByRole('button', { name: 'Exit', exact: true }).click();
      await toast(s, 'You are back in your own account.').waitFor();
      await banner.waitFor({ state: 'detached' });
    } finally {
      await investor.context.close();
      await staff.context.close();
    }
    assert.deepEqual([...investor.problems, ...staff.problems], [], 'no console errors, uncaught errors or CSP violations in the pages');
  });
});
