// Investments end to end in a real browser against a running development server: an investor
// with a verified e-mail, an approved identity check and a confirmed deposit starts an
// investment in the demo Basic plan (seeing the APR, the exact payout and the risk notice), staff
// approve it from the queue, the development test clock is moved on by the term, and the
// dashboard shows the matured balance to the cent. Same environment as deposits.test.mjs
// (E2E_BASE_URL, E2E_MAIL_DIR, the demo admin, CHROMIUM_PATH); the server must have the demo
// plans (a development server seeds them) and a USDT/TRC20 deposit address.
//
// Moving the test clock moves the whole server 30 days on and ends every session made before
// (sessions last 12 hours), so the investor signs in again afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { BASE_URL, CHROMIUM_ARGS, CHROMIUM_PATH, chromium, STEP_TIMEOUT_MS, url } from './browser.mjs';
import * as flows from './flows.mjs';
import { adminCredentials, button, expectAccessible, heading, linkIn, login, MAIL_DIR, mailMark, PASSWORD, register, toast, uniqueEmail, waitForMail } from './flows.mjs';

// A JSON call from inside the page, with the page's cookies and the header the app sends.
async function api(page, method, path, body) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const res = await fetch(path, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    },
    { method, path, body },
  );
}

// Uploads a small generated JPEG as both sides of the identity document.
async function uploadIdentity(page) {
  return page.evaluate(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 120;
    canvas.height = 80;
    const g = canvas.getContext('2d');
    g.fillStyle = '#2c5f9e';
    g.fillRect(0, 0, 120, 80);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.9));
    const form = new FormData();
    form.append('front', new File([blob], 'front.jpg', { type: 'image/jpeg' }));
    form.append('back', new File([blob], 'back.jpg', { type: 'image/jpeg' }));
    const res = await fetch('/api/users/uploadKycDocuments', { method: 'POST', headers: { 'X-Requested-With': 'XMLHttpRequest' }, body: form });
    return res.status;
  });
}

describe(`investments against ${BASE_URL}`, () => {
  let browser;

  before(async () => {
    assert.ok(MAIL_DIR, "Set E2E_MAIL_DIR to the server's file:// mail directory (e.g. <CLEARVEST_DATA_DIR>/mail).");
    try {
      await fetch(url('/'), { signal: AbortSignal.timeout(STEP_TIMEOUT_MS) });
    } catch (error) {
      const reason = error.cause?.code ?? error.message;
      throw new Error(`No server answers at ${BASE_URL} (${reason}). Start it, or set E2E_BASE_URL.`);
    }
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });
  });

  after(async () => {
    await browser?.close();
  });

  it('invests with the figures shown first, staff approve, and maturity pays out to the cent', async () => {
    const admin = adminCredentials();
    const email = uniqueEmail('invest');
    const investor = await flows.freshBrowser(browser);
    const staff = await flows.freshBrowser(browser);
    try {
      const { page } = investor;
      let mark = await mailMark();
      await register(page, { email, name: 'Ines Vestor' });
      await page.goto(linkIn(await waitForMail(email, { mark, subject: /confirm|verif/i }), '/verify/'));
      await page.getByRole('heading', { name: 'E-mail verified' }).waitFor();
      const me = await api(page, 'GET', '/api/users/getUser');
      assert.equal(me.status, 200);
      const userId = me.body._id;

      // The identity check and a deposit of $250, approved and confirmed by staff.
      assert.equal(await uploadIdentity(page), 200);
      const deposit = await api(page, 'POST', '/api/payments/create', { amount: '250', asset: 'USDT', network: 'TRC20' });
      assert.equal(deposit.status, 200, JSON.stringify(deposit.body));
      await login(staff.page, admin.email, admin.password);
      assert.equal((await api(staff.page, 'PATCH', `/api/users/kyc/${userId}/approve`, {})).status, 200);
      const confirmed = await api(staff.page, 'PATCH', '/api/payments/confirmPayment', { transactionId: deposit.body.transactionId, amount: '250' });
      assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));

      // New investment: Basic ($100 to $250, 30 days, 0.40 % for the term, 4.87 % a year).
      await page.goto(url('/start-invest'));
      await heading(page, 'New Investment').waitFor();
      const basic = page.getByTestId('plan-choice').filter({ hasText: 'Basic' });
      await basic.getByText('$100.00 to $250.00').waitFor();
      await basic.getByText(/4\.87% a year \(APR\)/).waitFor();
      await expectAccessible(page, '/start-invest');
      await page.getByRole('radio', { name: 'Basic' }).check();
      await page.getByLabel('Amount in US dollars').fill('200.05');
      await button(page, 'Review investment').click();
      const confirm = page.getByTestId('invest-confirm');
      // 200.05 × 0.004 = 0.8002 → $0.80; paid at maturity: $200.85.
      await confirm.getByTestId('quote-payout').getByText('$200.85').waitFor();
      await confirm.getByText('4.87% a year').waitFor();
      await confirm.getByText('0.40%').waitFor();
      await confirm.getByRole('heading', { name: 'Know the risks before you invest' }).waitFor();
      await expectAccessible(page, '/start-invest (confirmation)');
      await confirm.getByRole('checkbox', { name: /I have read the risk notice/ }).check();
      mark = await mailMark();
      await button(page, 'Confirm investment').click();
      await toast(page, 'Investment requested!').waitFor();
      await page.getByTestId('invest-started').waitFor();
      await heading(page, 'Welcome, Ines').waitFor();
      await waitForMail(email, { mark, subject: /We received your investment request/ });

      // Staff approve it from the queue.
      await staff.page.goto(url('/admin-pending-investment'));
      await heading(staff.page, 'Investment Queue').waitFor();
      const item = staff.page.getByTestId('investment-queue-item').filter({ hasText: email });
      await item.getByText(/^waiting /).waitFor();
      await expectAccessible(staff.page, '/admin-pending-investment');
      mark = await mailMark();
      await item.getByRole('button', { name: 'Approve' }).click();
      await toast(staff.page, 'Investment approved successfully!').waitFor();
      const approved = await waitForMail(email, { mark, subject: /is active/ });
      assert.match(approved.text, /\$200\.85/);

      // The investor's portfolio and the investment's page.
      await page.goto(url('/invest-status'));
      await heading(page, 'My Portfolio').waitFor();
      const row = page.getByTestId('investment-item').first();
      await row.getByTestId('investment-status').getByText('Active').waitFor();
      await expectAccessible(page, '/invest-status');
      await row.getByRole('link').click();
      await heading(page, 'Investment Details').waitFor();
      await page.getByTestId('investment-progress').getByText(/Accrued to date \(an estimate\)/).waitFor();
      await page.getByTestId('investment-payout').getByText('$200.85').waitFor();
      await expectAccessible(page, '/investment/:investmentId');
      await page.goto(url('/my-account'));
      await page.locator('.figure').filter({ hasText: 'Available balance' }).getByText('$49.95').waitFor();

      // The term passes: the test clock moves 30 days on (development only), as the admin.
      mark = await mailMark();
      const moved = await api(staff.page, 'POST', '/api/dev/clock', { advance: '720h' });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      await waitForMail(email, { mark, subject: /matured/ });

      // Sessions made before the move have ended; the dashboard shows $250.00 − $200.05 + $200.85.
      await login(page, email, PASSWORD);
      const available = page.locator('.figure').filter({ hasText: 'Available balance' });
      await available.getByText('$250.80').waitFor();
      await page.locator('.figure').filter({ hasText: 'Invested' }).getByText('$0.00').waitFor();
      await expectAccessible(page, '/my-account (matured)');
    } finally {
      await investor.context.close();
      await staff.context.close();
    }
    assert.deepEqual([...investor.problems, ...staff.problems], [], 'no uncaught errors or CSP violations in the pages');
  });
});
