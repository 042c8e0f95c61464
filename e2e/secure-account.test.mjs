// The "Wasn't you?" link of a real new-browser e-mail, followed in a browser: the page explains
// what securing does, changes nothing until its owner confirms, and then signs everyone out.
// Run as the other browser tests (see identity.test.mjs for the environment).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { url } from './browser.mjs';
import * as flows from './flows.mjs';
import {
  button,
  heading,
  linkIn,
  login,
  mailMark,
  PASSWORD,
  signUpVerified,
  uniqueEmail,
  waitForMail,
  withBrowser,
  withSuiteBrowser,
} from './flows.mjs';

describe('"Wasn\'t you?" link', () => {
  const suite = withSuiteBrowser();

  it('opens a page that secures the account once confirmed', async () => {
    const email = uniqueEmail('secure');
    await withBrowser(suite.browser, async (ownerSession) => {
      const owner = ownerSession.page;
      await signUpVerified(owner, { email });

      // Someone signs in from another browser: the owner gets the new-browser e-mail.
      let secureLink;
      await withBrowser(suite.browser, async ({ page: intruder }) => {
        const mark = await mailMark();
        await login(intruder, email, PASSWORD);
        secureLink = linkIn(await waitForMail(email, { mark, subject: /new sign-in|new browser|new device/i }), '/secure-account/');
      });

      await withBrowser(suite.browser, async ({ page }) => {
        await page.goto(secureLink);
        await heading(page, 'Secure Your Account').waitFor();
        // Opening the link changed nothing: the owner is still signed in.
        const still = await owner.evaluate(() => fetch('/api/users/getUser', { headers: { 'X-Requested-With': 'XMLHttpRequest' } }).then((r) => r.status));
        assert.equal(still, 200);

        // From the moment every session ends, the owner's open page may ask the server again
        // by itself (its live stream is closed, so it refreshes what it shows) and be refused:
        // that refusal is the point of the test, so it is allowed from the click on.
        await flows.allowConsoleErrors(ownerSession, async () => {
          const mark = await mailMark();
          await button(page, 'Sign everyone out and secure my account').click();
          await page.getByRole('heading', { name: 'Your account is secured' }).waitFor();
          await waitForMail(email, { mark, subject: /password/i });

          // Every session was ended: the owner's browser still holds its refresh cookie, which
          // the server now refuses (401), and the app shows the sign-in page.
          await owner.goto(url('/my-account'));
          await heading(owner, 'Sign In').waitFor();
        });
      });
      assert.ok(
        ownerSession.allowed.every((text) => /status of 401 .*\/api\/users\//.test(text)),
        `only the ended session's refusals: ${ownerSession.allowed}`,
      );
    });
  });
});
