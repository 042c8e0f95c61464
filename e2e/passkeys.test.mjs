// Passkeys end to end in a real browser with Chromium's virtual authenticator: an investor adds
// a passkey on the Security tab, signs out, signs in with the passkey alone (no password, no
// e-mailed code), and confirms a withdrawal with it. Same environment as withdrawals.test.mjs
// (E2E_BASE_URL, E2E_MAIL_DIR, the demo admin, CHROMIUM_PATH); the test runs at localhost,
// since a passkey's relying party cannot be an IP address.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { addVirtualAuthenticator, localBaseURL, stepUpWithPasskey, storedCredentials } from './passkeys.mjs';

process.env.E2E_BASE_URL = localBaseURL();
const { BASE_URL, url } = await import('./browser.mjs');
const flows = await import('./flows.mjs');
const { adminCredentials, api, button, confirmedDeposit, expectAccessible, heading, logout, signIn, signUpVerified, toast, uniqueEmail, uploadIdentity, withSuiteBrowser } = flows;

// A published example TRON address (the development deposit address's network), never to be paid.
const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

describe(`passkeys against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('adds a passkey, signs in with it after signing out, and confirms a withdrawal with it', async () => {
    const admin = adminCredentials();
    const email = uniqueEmail('passkey');
    const investor = await flows.freshBrowser(suite.browser);
    const staff = await flows.freshBrowser(suite.browser);
    try {
      const { page } = investor;
      const cdp = await investor.context.newCDPSession(page);
      const authenticatorId = await addVirtualAuthenticator(cdp);

      // An investor with an approved identity check and $200.00 to withdraw from.
      await signUpVerified(page, { email, name: 'Pat Passkey' });
      const me = await api(page, 'GET', '/api/users/getUser');
      assert.equal(await uploadIdentity(page), 200);
      await signIn(staff.page, admin.email, admin.password);
      assert.equal((await api(staff.page, 'PATCH', `/api/users/kyc/${me.body._id}/approve`, {})).status, 200);
      await confirmedDeposit(page, staff.page, '200');

      // The Security tab: name the passkey, the device makes it, the list shows it.
      await page.goto(url('/user-profile?tab=security'));
      const section = page.getByRole('region', { name: 'Your passkeys' });
      await section.getByText('You have no passkeys yet.').waitFor();
      await section.getByLabel('Name of the new passkey').fill('This laptop');
      await section.getByRole('button', { name: 'Add a passkey' }).click();
      await toast(page, 'Passkey added').waitFor();
      const item = section.getByTestId('passkey').filter({ hasText: 'This laptop' });
      await item.getByText(/not used yet/).waitFor();
      await expectAccessible(page, '/user-profile?tab=security (passkeys)');
      const [stored] = await storedCredentials(cdp, authenticatorId);
      assert.ok(stored?.isResidentCredential, 'the passkey is discoverable');

      // Signed out, the passkey alone signs back in: no e-mail address, no password, no code.
      await flows.dismissToast(page, 'Passkey added');
      await logout(page);
      await page.goto(url('/login'));
      await heading(page, 'Sign In').waitFor();
      await button(page, 'Sign in with a passkey').click();
      const welcome = heading(page, 'Welcome, Pat');
      const refusal = page.getByRole('alert');
      await welcome.or(refusal).first().waitFor();
      assert.ok(await welcome.isVisible(), `the passkey sign-in was refused: ${await refusal.allTextContents()}`);

      // A withdrawal needs the person: the passkey confirms it's them.
      await page.goto(url('/withdraw-wallet'));
      await heading(page, 'Withdraw').waitFor();
      await page.getByLabel('Amount in US dollars').fill('50');
      await page.getByLabel('Network').selectOption({ label: 'USDT on TRON (TRC-20)' });
      await page.getByLabel('Your wallet address').fill(TRON_ADDRESS);
      await button(page, 'Continue').click();
      await page.getByTestId('withdraw-summary').waitFor();
      await button(page, 'Confirm withdrawal').click();
      await page.getByRole('dialog', { name: "Confirm it's you" }).getByRole('button', { name: 'Use a passkey' }).waitFor();
      await expectAccessible(page, '/withdraw-wallet (confirm with a passkey)');
      await stepUpWithPasskey(page);
      await toast(page, 'Withdrawal requested').waitFor();

      // The list says when it was last used; the counter moved with each use.
      await page.goto(url('/user-profile?tab=security'));
      await page.getByTestId('passkey').filter({ hasText: 'This laptop' }).getByText(/last used/).waitFor();
      const [after] = await storedCredentials(cdp, authenticatorId);
      assert.ok(after.signCount > stored.signCount, `the counter advanced: ${stored.signCount} → ${after.signCount}`);
    } finally {
      await investor.context.close();
      await staff.context.close();
    }
  });
});
