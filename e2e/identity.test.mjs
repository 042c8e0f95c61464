// Identity flows in a real browser against a running server, reading the e-mails the server
// really wrote: `node --test e2e/` from the repository root, after `npm ci` in ui/ (playwright-core
// and axe-core come from ui/node_modules, as in smoke.test.mjs).
//
// Environment:
//   E2E_BASE_URL        server to test (default http://localhost:8080). It must run with
//                       CLEARVEST_ENV=development and CLEARVEST_PUBLIC_URL equal to this URL (the
//                       CSRF check compares the browser's Origin with it; e-mailed links use it).
//   E2E_MAIL_DIR        required: the directory of the server's file:// mail transport, as a path
//                       or a file:// URL (by default <CLEARVEST_DATA_DIR>/mail). The tests read the
//                       newest .eml for each recipient to follow links and enter codes.
//   E2E_ADMIN_EMAIL     an admin's e-mail and password, for the suspension test (the demo admin).
//   E2E_ADMIN_PASSWORD  When unset, they are read from demo-logins.txt next to E2E_MAIL_DIR
//                       (the file `clearvest serve` writes into a development data directory).
//   CHROMIUM_PATH       browser binary (default /usr/bin/chromium)
//
// Every test registers its own users with unique e-mail addresses, so the tests are independent
// of each other and of earlier runs against the same server. The server limits registrations to
// 20 an hour per address; one run registers 8.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';

import { BASE_URL, CHROMIUM_ARGS, CHROMIUM_PATH, chromium, STEP_TIMEOUT_MS, url } from './browser.mjs';
import * as flows from './flows.mjs';
import {
  button,
  codeIn,
  expectAccessible,
  field,
  heading,
  linkIn,
  login,
  logout,
  MAIL_DIR,
  mailMark,
  PASSWORD,
  register,
  submitLogin,
  toast,
  adminCredentials,
  uniqueEmail,
  waitForMail,
} from './flows.mjs';

// ---- Authenticator codes (RFC 6238: HMAC-SHA-1, 30 s steps, 6 digits) -------------------------

function base32Decode(input) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out = [];
  for (const char of input.replace(/[\s=]/g, '').toUpperCase()) {
    const index = alphabet.indexOf(char);
    assert.ok(index >= 0, `not base32: ${input}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

const currentStep = () => Math.floor(Date.now() / 1000 / 30);

function totp(secret, step = currentStep()) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const hmac = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = hmac[hmac.length - 1] & 0x0f;
  return String((hmac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}


// ---- Flows -------------------------------------------------------------------------------------

describe(`identity flows against ${BASE_URL}`, () => {
  let browser;

  before(async () => {
    assert.ok(MAIL_DIR, 'Set E2E_MAIL_DIR to the server\'s file:// mail directory (e.g. <CLEARVEST_DATA_DIR>/mail).');
    try {
      await fetch(url('/'), { signal: AbortSignal.timeout(STEP_TIMEOUT_MS) });
    } catch (error) {
      const reason = error.cause?.code ?? error.message;
      throw new Error(`No server answers at ${BASE_URL} (${reason}). Start it, or set E2E_BASE_URL.`);
    }
    const meta = await (await fetch(url('/api/meta'))).json();
    assert.equal(meta.environment, 'development', 'the identity flows need a development server (file mailbox)');
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });
  });

  after(async () => {
    await browser?.close();
  });
  afterEach(flows.expectQuietPages);
  const freshBrowser = (contextOptions) => flows.freshBrowser(browser, contextOptions);
  const withBrowser = (fn, contextOptions) => flows.withBrowser(browser, fn, contextOptions);


  async function openSecurityTab(page) {
    await page.goto(url('/user-profile?tab=security'));
    await page.getByRole('tab', { name: 'Security', selected: true }).waitFor();
  }

  // ---- Flows -----------------------------------------------------------------------------------

  it('registers, verifies the e-mail from the real message and continues to the identity check', async () => {
    await withBrowser(async (session) => {
      const { page } = session;
      const email = uniqueEmail('verify');
      const mark = await mailMark();
      await register(page, { email, name: 'Vera Verify' });

      await page.goto(url('/my-account'));
      await heading(page, 'Welcome, Vera').waitFor();
      await page.getByText('Please verify your e-mail address.').waitFor();
      await page.getByText(/Identity check: no documents yet/).waitFor();
      await page.getByText('$0.00').first().waitFor();
      await expectAccessible(page, '/my-account (unverified)');

      const mail = await waitForMail(email, { mark, subject: /confirm|verif/i });
      await page.goto(linkIn(mail, '/verify/'));
      await heading(page, 'Verify Your E-mail').waitFor();
      await page.getByRole('heading', { name: 'E-mail verified' }).waitFor();
      await expectAccessible(page, '/verify/:token');

      // After verification the page moves on to the identity check after 3 s.
      await page.waitForURL(url('/upload-kyc'), { timeout: 6000 });
      await page.goto(url('/my-account'));
      await heading(page, 'Welcome, Vera').waitFor();
      assert.equal(await page.getByText('Please verify your e-mail address.').count(), 0, 'the banner is gone');
    });
  });

  it('asks a new browser for the e-mailed login code, then signs in', async () => {
    const email = uniqueEmail('device');
    await withBrowser(async (session) => {
      const { page } = session;
      await register(page, { email });
      await logout(page);
    });

    await withBrowser(async (session) => {
      const { page } = session;
      const mark = await mailMark();
      await submitLogin(page, email, PASSWORD);
      await heading(page, 'Enter your login code').waitFor();
      assert.equal(new URL(page.url()).pathname, `/loginWithCode/${encodeURIComponent(email)}`);
      await toast(page, 'New browser').waitFor();
      await page.getByText(/You can ask for a new code in \d+ s\./).waitFor();
      await expectAccessible(page, '/loginWithCode/:email');

      const mail = await waitForMail(email, { mark, subject: /code/i });
      const code = codeIn(mail);

      // The code belongs to the sign-in that passed the password in this browser: typed into
      // another browser it signs nobody in, and that browser is sent back to the password.
      await withBrowser(async (otherSession) => {
        const other = otherSession.page;
        await other.goto(url(`/loginWithCode/${encodeURIComponent(email)}`));
        await heading(other, 'Enter your login code').waitFor();
        await field(other, 'Login code').fill(code);
        // Refused (401 login_expired) on purpose.
        await flows.allowConsoleErrors(otherSession, async () => {
          await button(other, 'Sign in').click();
          await heading(other, 'Sign In').waitFor();
          // Said on the sign-in page, where a new sign-in starts: not in a toast.
          await other.getByTestId('form-error').getByText('This sign-in has expired. Please log in again.').waitFor();
        });
      });

      await field(page, 'Login code').fill(code);
      await button(page, 'Sign in').click();

      await heading(page, /^Welcome, /).waitFor();
      await toast(page, 'Login Successful').waitFor();
      assert.equal(new URL(page.url()).pathname, '/my-account');
    });
  });

  it('resets a forgotten password from the e-mailed link and signs in with the new one', async () => {
    const email = uniqueEmail('forgot');
    const newPassword = 'Meadow-Compass-77';
    await withBrowser(async (session) => {
      const { page } = session;
      await register(page, { email });
      await logout(page);

      const mark = await mailMark();
      await page.goto(url('/forgot'));
      await heading(page, 'Forgot Password').waitFor();
      await field(page, 'Email').fill(email);
      await button(page, 'Send reset link').click();
      await page.getByText('If an account exists for that e-mail, we sent a reset link.').waitFor();
      await expectAccessible(page, '/forgot (sent)');

      const mail = await waitForMail(email, { mark, subject: /reset|password/i });
      await page.goto(linkIn(mail, '/resetPassword/'));
      await heading(page, 'Reset Password').waitFor();
      await expectAccessible(page, '/resetPassword/:token');
      await field(page, 'New password').fill(newPassword);
      await field(page, 'Confirm new password').fill(newPassword);
      await button(page, 'Reset password').click();

      await heading(page, 'Sign In').waitFor();
      await toast(page, 'Reset Successful').waitFor();

      // The old password, refused (401) on purpose.
      await flows.allowConsoleErrors(session, async () => {
        await submitLogin(page, email, PASSWORD);
        // A refusal no field is at fault for: the form's error panel, not a toast.
        await page.getByRole('alert').getByText('Invalid email or password').waitFor();
      });
      await login(page, email, newPassword);
    });
  });

  it('signs out after a password change; only the new password works', async () => {
    const email = uniqueEmail('change');
    const newPassword = 'Orchard-Beacon-19';
    await withBrowser(async (session) => {
      const { page } = session;
      await register(page, { email });
      await openSecurityTab(page);
      await expectAccessible(page, '/user-profile Security tab');

      const form = page.getByRole('form', { name: 'Change password' });
      await field(form, 'Current password').fill(PASSWORD);
      await field(form, 'New password').fill(newPassword);
      await field(form, 'Confirm new password').fill(newPassword);
      await button(form, 'Change password').click();

      await heading(page, 'Sign In').waitFor();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sign In' }).waitFor({ state: 'attached' });

      // The old password, refused (401) on purpose.
      await flows.allowConsoleErrors(session, async () => {
        await submitLogin(page, email, PASSWORD);
        // A refusal no field is at fault for: the form's error panel, not a toast.
        await page.getByRole('alert').getByText('Invalid email or password').waitFor();
      });
      await login(page, email, newPassword);
    });
  });

  it('enrols an authenticator app; signing in then needs its code', async () => {
    const email = uniqueEmail('totp');
    await withBrowser(async (session) => {
      const { page } = session;
      await register(page, { email });
      await openSecurityTab(page);
      await button(page, 'Set up authenticator app').click();
      await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
      const secret = (await page.getByTestId('totp-secret').textContent()).replace(/\s/g, '');
      await expectAccessible(page, 'authenticator set-up');

      const enrolStep = currentStep();
      await field(page, 'Code from the app').fill(totp(secret, enrolStep));
      await button(page, 'Turn on two-step verification').click();
      await page.getByRole('heading', { name: /Two-step verification is on/ }).waitFor();
      const codes = await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allTextContents();
      assert.ok(codes.length >= 8, `recovery codes shown: ${codes.join(', ')}`);
      await expectAccessible(page, 'recovery codes');
      await button(page, 'I have saved them').click();
      await page.getByText('Signing in needs your password and a code from your authenticator app.').waitFor();
      assert.equal(await page.getByRole('list', { name: 'Recovery codes' }).count(), 0, 'recovery codes are shown once');

      await logout(page);
      await submitLogin(page, email, PASSWORD);
      const codeField = field(page, 'Authenticator code');
      await codeField.waitFor();
      await expectAccessible(page, '/login (authenticator step)');
      // A code is accepted once: use the next step (within the server's ±1 step window).
      await codeField.fill(totp(secret, Math.max(enrolStep + 1, currentStep())));
      await button(page, 'Verify and sign in').click();
      await heading(page, /^Welcome, /).waitFor();
    });
  });

  it('shows "Account Suspended" to a user an admin has suspended from the Users tab', async () => {
    const admin = adminCredentials();
    const email = uniqueEmail('suspend');
    await withBrowser(async (session) => {
      const { page } = session;
      await register(page, { email, name: 'Sam Suspended' });
      await logout(page);

      await withBrowser(async ({ page: adminPage }) => {
        await login(adminPage, admin.email, admin.password);
        await adminPage.goto(url('/user-profile?tab=users'));
        await adminPage.getByRole('tab', { name: 'Users', selected: true }).waitFor();
        await field(adminPage, 'Search users by name or e-mail').fill(email);
        const card = adminPage.getByTestId('user-card').filter({ hasText: email });
        await card.waitFor();
        // The search runs once typing pauses; until then the full list shows.
        await adminPage.waitForFunction(() => document.querySelectorAll('[data-testid="user-card"]').length === 1);
        await expectAccessible(adminPage, '/user-profile Users tab');

        await card.getByRole('button', { name: 'Actions for Sam Suspended' }).click();
        await card.getByRole('button', { name: 'Suspend', exact: true }).click();
        const dialog = adminPage.getByRole('dialog', { name: 'Suspend Sam Suspended?' });
        await dialog.getByLabel(/Reason/).fill('End-to-end test');
        await dialog.getByRole('button', { name: 'Suspend user' }).click();
        await dialog.waitFor({ state: 'detached' });
        await card.getByText('Suspended', { exact: true }).waitFor();
      });

      const modal = page.getByRole('alertdialog', { name: 'Account Suspended' });
      // The suspended account's sign-in, refused (403) on purpose.
      await flows.allowConsoleErrors(session, async () => {
        await submitLogin(page, email, PASSWORD);
        await modal.waitFor();
      });
      await modal.getByText(/suspended/).first().waitFor();
      await expectAccessible(page, '/login (Account Suspended)');
      await modal.getByRole('link', { name: 'Contact Support' }).click();
      await page.waitForURL(url('/support'));
    });
  });

  // ---- Every client-side message of the specification ----------------------------------------

  it('shows every register message, lets people paste the confirmation and ticks the strength checklist', async () => {
    await withBrowser(async ({ page, context }) => {
      await page.goto(url('/register?ref=FRIEND42'));
      await heading(page, 'Create an Account').waitFor();
      assert.equal(await field(page, 'Referral code (optional)').inputValue(), 'FRIEND42');
      await page.getByRole('option', { name: 'United Kingdom (+44)' }).waitFor({ state: 'attached' });
      await expectAccessible(page, '/register');

      const valid = {
        'Full name': 'Val Idation',
        Email: uniqueEmail('messages'),
        'Phone number': '+447700900123',
        Password: 'Ab1!efgh',
        'Confirm password': 'Ab1!efgh',
      };
      const attempt = async ({ Country: country = 'GB', ...changes }, message, invalidLabel) => {
        for (const [label, value] of Object.entries({ ...valid, ...changes })) await field(page, label).fill(value);
        await field(page, 'Country').selectOption(country);
        await button(page, 'Create account').click();
        await page.getByText(message, { exact: true }).waitFor();
        assert.equal(await field(page, invalidLabel).getAttribute('aria-invalid'), 'true', `${invalidLabel} is marked invalid`);
        assert.ok(await field(page, invalidLabel).evaluate((el) => el === document.activeElement), `${invalidLabel} has focus`);
      };
      await attempt({ 'Full name': '' }, 'All fields are required', 'Full name');
      await expectAccessible(page, '/register with an error');
      await attempt({ Country: '' }, 'All fields are required', 'Country');
      await attempt({ Email: 'not-an-email' }, 'Please enter a valid email', 'Email');
      await attempt({ 'Phone number': '0123' }, 'Please enter a valid Phone Number', 'Phone number');
      await attempt({ Password: 'Ab1!efg', 'Confirm password': 'Ab1!efg' }, 'Password must be at least 8 characters', 'Password');
      await attempt({ 'Confirm password': 'Ab1!efgX' }, 'Passwords do not match', 'Confirm password');
      // Everything right but the consent: nothing is sent, and the box says why.
      for (const [label, value] of Object.entries(valid)) await field(page, label).fill(value);
      await field(page, 'Country').selectOption('GB');
      await button(page, 'Create account').click();
      await page.getByText('Please agree to the Terms and the Privacy Policy to create an account', { exact: true }).waitFor();
      const consent = page.getByRole('checkbox', { name: /I agree to the Terms/ });
      assert.equal(await consent.getAttribute('aria-invalid'), 'true', 'the consent box is marked invalid');
      assert.ok(await consent.evaluate((el) => el === document.activeElement), 'the consent box has focus');

      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE_URL });
      await field(page, 'Confirm password').fill('');
      await page.evaluate(() => navigator.clipboard.writeText('Ab1!efgh'));
      await field(page, 'Confirm password').focus();
      await page.keyboard.press('Control+V');
      assert.equal(await field(page, 'Confirm password').inputValue(), 'Ab1!efgh', 'a password manager or the clipboard may fill it');

      const checklist = page.getByText('A strong password has:').locator('..');
      const met = () => checklist.locator('[data-met="true"]').count();
      await field(page, 'Password').fill('');
      assert.equal(await met(), 0);
      await field(page, 'Password').fill('abcD');
      assert.equal(await met(), 1);
      await field(page, 'Password').fill('abcD7~');
      assert.equal(await met(), 3, 'six characters are too few');
      await field(page, 'Password').fill('abcD7~gh');
      assert.equal(await met(), 4);
      await checklist.getByText(/8 to 128 characters/).waitFor();
    });
  });

  it('shows every login, forgot, reset and login-code message', async () => {
    await withBrowser(async (session) => {
      const { page } = session;
      const expectMessage = async (where, submit, message, label) => {
        await button(page, submit).click();
        await page.getByText(message, { exact: true }).waitFor();
        assert.equal(await field(page, label).getAttribute('aria-invalid'), 'true', `${where}: ${label} is marked invalid`);
      };

      await page.goto(url('/login'));
      await heading(page, 'Sign In').waitFor();
      await expectAccessible(page, '/login');
      await expectMessage('/login', 'Sign In', 'All fields are required', 'Email');
      await expectAccessible(page, '/login with an error');
      await field(page, 'Email').fill('ada@');
      await field(page, 'Password').fill('whatever');
      await expectMessage('/login', 'Sign In', 'Please enter a valid email', 'Email');
      await page.getByRole('link', { name: 'Forgot password?' }).click();

      await heading(page, 'Forgot Password').waitFor();
      await expectAccessible(page, '/forgot');
      await expectMessage('/forgot', 'Send reset link', 'Please enter an email', 'Email');
      await field(page, 'Email').fill('ada.example.com');
      await expectMessage('/forgot', 'Send reset link', 'Please enter a valid email', 'Email');

      await page.goto(url('/resetPassword/not-a-real-token'));
      await heading(page, 'Reset Password').waitFor();
      await expectMessage('/resetPassword', 'Reset password', 'All fields are required', 'New password');
      await field(page, 'New password').fill('Ab1!efg');
      await field(page, 'Confirm new password').fill('Ab1!efg');
      await expectMessage('/resetPassword', 'Reset password', 'Password must be at least 8 characters', 'New password');
      await field(page, 'New password').fill('Ab1!efgh');
      await field(page, 'Confirm new password').fill('Ab1!efgX');
      await expectMessage('/resetPassword', 'Reset password', 'Passwords do not match', 'Confirm new password');
      await field(page, 'Confirm new password').fill('Ab1!efgh');
      // A made-up reset link, refused on purpose.
      await flows.allowConsoleErrors(session, async () => {
        await button(page, 'Reset password').click();
        await page.getByRole('alert').filter({ hasText: /invalid|expired/i }).first().waitFor();
      });

      await page.goto(url(`/loginWithCode/${encodeURIComponent('nobody@example.com')}`));
      await heading(page, 'Enter your login code').waitFor();
      await expectMessage('/loginWithCode', 'Sign in', 'Please fill in the login code', 'Login code');
      await field(page, 'Login code').fill('12345');
      await expectMessage('/loginWithCode', 'Sign in', 'Access code must be 6 characters', 'Login code');
      await expectAccessible(page, '/loginWithCode with an error');
    });
  });

  // ---- Layout at 360 px and the development mailbox ------------------------------------------

  it('fits every identity page on a 360 px screen', async () => {
    const email = uniqueEmail('narrow');
    await withBrowser(
      async ({ page }) => {
        const fits = async (path, name) => {
          if (path) await page.goto(url(path));
          await heading(page, name).waitFor();
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(overflow <= 0, `${path ?? page.url()} is ${overflow}px wider than the screen`);
        };
        await fits('/login', 'Sign In');
        await fits('/forgot', 'Forgot Password');
        await fits('/resetPassword/abc', 'Reset Password');
        await fits(`/loginWithCode/${encodeURIComponent('a.very.long.address.for.testing@example.com')}`, 'Enter your login code');
        await register(page, { email, name: 'Demo Investor 1' });
        await fits('/my-account', /^Welcome, /);
        for (const tab of ['profile', 'security']) await fits(`/user-profile?tab=${tab}`, 'Profile');

        // The header shows a 15-character name whole when there is room, and shortens a longer
        // one with an ellipsis at the edge of the screen, never by a fixed count of characters.
        const shownName = (name) => page.locator('.profile-head').getByTitle(name, { exact: true });
        const isCut = (locator) => locator.evaluate((el) => el.scrollWidth > el.clientWidth);
        await page.goto(url('/user-profile?tab=profile'));
        assert.equal(await shownName('Demo Investor 1').textContent(), 'Demo Investor 1');
        assert.equal(await isCut(shownName('Demo Investor 1')), false, 'a 15-character name fits at 360 px');
        const longName = 'Demo Investor With A Remarkably Long Family Name';
        await field(page, 'Full name').fill(longName);
        await button(page, 'Save changes').click();
        await toast(page, 'User Updated').waitFor();
        await shownName(longName).waitFor();
        assert.equal(await shownName(longName).textContent(), longName, 'the whole name stays in the text');
        assert.equal(await isCut(shownName(longName)), true, 'a name wider than the screen is cut by CSS');
        await fits(null, 'Profile');
        await fits('/dev/mail', 'Development Mailbox');
        await expectAccessible(page, '/dev/mail');
      },
      { viewport: { width: 360, height: 740 } },
    );
  });

  it('lists the development mailbox, newest first, and opens a message', async () => {
    await withBrowser(async (session) => {
      const { page } = session;
      const email = uniqueEmail('mailbox');
      await register(page, { email });
      await page.goto(url('/dev/mail'));
      await heading(page, 'Development Mailbox').waitFor();
      await page.getByLabel('Filter by recipient or subject').fill(email);
      await page.getByRole('button', { name: /Confirm your e-mail/ }).click();
      await page.getByRole('heading', { level: 2, name: /Confirm your e-mail/ }).waitFor();
      await page.getByRole('link', { name: /\/verify\// }).waitFor();
    });
  });
});
