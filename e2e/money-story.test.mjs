// The money story end to end in a real browser against a running development server, one
// investor through the real pages and real e-mails: a deposit on the deposit page, confirmed by
// staff on the payment page; an investment in the demo Basic plan (seeing the APR, the exact
// payout and the risk notice first), approved by staff from the queue; the development test
// clock moved on by the term; the matured balance exact to the cent; a withdrawal with its fee
// shown before confirming, approved by staff with the payout hash; and the transaction history
// and a CSV statement showing every step. Same environment as deposits.test.mjs (E2E_BASE_URL,
// E2E_MAIL_DIR, the demo admin, CHROMIUM_PATH); the server must have the demo plans (a
// development server seeds them) and a USDT/TRC20 deposit address.
//
// Moving the test clock moves the whole server 30 days on and ends every session made before
// (sessions last 12 hours), so both sign in again afterwards, and this test runs alone, after the
// others (scripts/test.sh).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import { adminCredentials, api, button, confirmItsMe, expectAccessible, heading, login, mailMark, PASSWORD, registerVerified, toast, uniqueEmail, uploadIdentity, waitForMail, withSuiteBrowser } from './flows.mjs';

const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

// A UTC day as the date inputs take it, days from now on the browser's clock.
const utcDay = (days) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe(`the money story against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('deposit, confirm, invest, approve, mature, withdraw with a fee, approve: every step in the history and the statement', async () => {
    const admin = adminCredentials();
    const email = uniqueEmail('story');
    const txHash = `0x${randomBytes(32).toString('hex')}`;
    const payoutHash = `0x${randomBytes(32).toString('hex')}`;
    const investor = await flows.freshBrowser(suite.browser, { acceptDownloads: true });
    const staff = await flows.freshBrowser(suite.browser);
    try {
      const { page } = investor;
      let mark;
      await registerVerified(page, { email, name: 'Ines Vestor' });
      const me = await api(page, 'GET', '/api/users/getUser');
      assert.equal(me.status, 200);
      const userId = me.body._id;

      // The identity check (its pages have their own test): uploaded, and approved by staff.
      assert.equal(await uploadIdentity(page), 200);
      await login(staff.page, admin.email, admin.password);
      assert.equal((await api(staff.page, 'PATCH', `/api/users/kyc/${userId}/approve`, {})).status, 200);

      // 1. A deposit of $250 in USDT on the deposit page.
      await page.goto(url('/deposit-payment'));
      await heading(page, 'Fund Wallet').waitFor();
      await page.getByLabel('Asset and network').selectOption({ label: 'USDT on TRON (TRC-20)' });
      await page.getByLabel('Amount in US dollars').fill('250');
      await page.getByLabel(/Transaction hash/).fill(txHash);
      await button(page, 'Confirm deposit').click();
      const transactionId = (await page.getByTestId('transaction-id').textContent()).trim();
      await heading(page, 'Welcome, Ines').waitFor();

      // 2. Staff confirm what arrived on the payment page; the investor is e-mailed.
      await staff.page.goto(url(`/transaction/${transactionId}`));
      await heading(staff.page, 'Payment Details').waitFor();
      await staff.page.getByLabel('Amount received (USD)').fill('250');
      mark = await mailMark();
      await button(staff.page, 'Confirm payment').click();
      await toast(staff.page, 'Payment successfully confirmed!').waitFor();
      await waitForMail(email, { mark, subject: /was confirmed/ });

      // 3. New investment: Basic ($100 to $250, 30 days, 0.40 % for the term, 4.87 % a year).
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

      // 4. Staff approve it from the queue.
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

      // 5. The term passes: the test clock moves 30 days on (development only), as the admin.
      mark = await mailMark();
      const moved = await api(staff.page, 'POST', '/api/dev/clock', { advance: '720h' });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      await waitForMail(email, { mark, subject: /matured/ });

      // 6. Sessions made before the move have ended; the dashboard shows $250.00 − $200.05 +
      // $200.85, to the cent.
      await login(page, email, PASSWORD);
      const available = page.locator('.figure').filter({ hasText: 'Available balance' });
      await available.getByText('$250.80').waitFor();
      await page.locator('.figure').filter({ hasText: 'Invested' }).getByText('$0.00').waitFor();
      await expectAccessible(page, '/my-account (matured)');

      // 7. A withdrawal of $100: the fee from the published schedule (1 % + $1.00) is shown
      // before the investor confirms.
      await page.goto(url('/withdraw-wallet'));
      await heading(page, 'Withdraw').waitFor();
      await page.getByTestId('withdraw-available').getByText('$250.80').waitFor();
      await page.getByLabel('Amount in US dollars').fill('100');
      await page.getByLabel('Network').selectOption({ label: 'USDT on TRON (TRC-20)' });
      await page.getByLabel('Your wallet address').fill(TRON_ADDRESS);
      await button(page, 'Continue').click();
      const summary = page.getByTestId('withdraw-summary');
      assert.equal((await summary.textContent()).trim(), 'You will receive $98.00 after a $2.00 fee.');
      mark = await mailMark();
      await button(page, 'Confirm withdrawal').click();
      // Moving money out needs the person, not just the session: the password, asked in place.
      await confirmItsMe(page);
      await toast(page, 'Withdrawal requested').waitFor();
      await waitForMail(email, { mark, subject: /withdrawal request of \$100\.00/ });
      await heading(page, 'Welcome, Ines').waitFor();

      // 8. Staff approve it with the payout transaction.
      await login(staff.page, admin.email, admin.password);
      await staff.page.goto(url('/admin-pending-wallet'));
      await heading(staff.page, 'Pending Withdrawals').waitFor();
      await staff.page.getByTestId('withdrawal-queue-item').filter({ hasText: email }).getByRole('link').click();
      await heading(staff.page, 'Withdrawal Details').waitFor();
      assert.equal(await staff.page.getByTestId('withdrawal-receives').textContent(), '$98.00');
      await button(staff.page, 'Approve withdrawal').click();
      const dialog = staff.page.getByRole('dialog', { name: 'Approve withdrawal' });
      await dialog.getByLabel('Payout transaction hash').fill(payoutHash);
      mark = await mailMark();
      await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
      await toast(staff.page, 'Withdrawal approved!').waitFor();
      const paid = await waitForMail(email, { mark, subject: /was approved/ });
      // It names the hash in its network's one form (no 0x on TRON), whatever the staff member pasted.
      assert.ok(paid.text.includes(payoutHash.slice(2)), 'the approval e-mail names the payout transaction');
      await page.goto(url('/my-account'));
      await available.getByText('$150.80').waitFor();
      await page.locator('.figure').filter({ hasText: 'Returns earned' }).getByText('$0.80').waitFor();
      await page.locator('.figure').filter({ hasText: 'Fees paid' }).getByText('$2.00').waitFor();

      // 9. The history shows every step, newest first.
      await page.goto(url('/transaction-History'));
      await heading(page, 'Transaction History').waitFor();
      const cards = page.getByTestId('history-card');
      await cards.filter({ hasText: 'Withdrawal approved' }).waitFor();
      const titles = [
        'Withdrawal approved', 'Withdrawal requested', 'Investment matured', 'Investment activated',
        'Investment requested: Basic', 'Deposit confirmed', 'Deposit requested',
      ];
      const text = await cards.allTextContents();
      assert.equal(text.length, titles.length, `history cards: ${text.join(' | ')}`);
      titles.forEach((title, i) => assert.ok(text[i].includes(title), `card ${i} is "${text[i]}", want ${title}`));
      await expectAccessible(page, '/transaction-History (the whole story)');

      // 10. The statement of the whole period (the server's clock is 30 days ahead of the
      // browser's), read from the file the browser saved.
      await page.getByLabel('Statement from').fill(utcDay(-1));
      await page.getByLabel('Statement to').fill(utcDay(40));
      const [download] = await Promise.all([page.waitForEvent('download'), button(page, 'Download statement (CSV)').click()]);
      const rows = (await readFile(await download.path(), 'utf8')).trimEnd().split('\r\n');
      assert.equal(rows[0], 'Date (UTC),Type,Status,Title,Reference,Amount,Fee,Effect,Balance after,Notes,Details');
      const lines = rows.slice(1);
      const expected = [
        /,,,Opening balance,,,,,0\.00,,$/,
        new RegExp(`,Transaction,Confirmed,Deposit requested,${transactionId},250\\.00,0\\.00,0\\.00,0\\.00,`),
        new RegExp(`,Transaction,Confirmed,Deposit confirmed,${transactionId},250\\.00,0\\.00,250\\.00,250\\.00,`),
        /,Investment,Ended,Investment requested: Basic,[^,]+,200\.05,0\.00,-200\.05,49\.95,/,
        /,Investment,Active,Investment activated,[^,]+,200\.05,0\.00,0\.00,49\.95,/,
        /,Investment,Ended,Investment matured,[^,]+,200\.85,0\.00,200\.85,250\.80,/,
        /,Withdrawal,Approved,Withdrawal requested,[^,]+,100\.00,2\.00,-100\.00,150\.80,/,
        /,Withdrawal,Approved,Withdrawal approved,[^,]+,100\.00,2\.00,0\.00,150\.80,/,
        /,,,Closing balance,,,,,150\.80,,$/,
      ];
      assert.equal(lines.length, expected.length, `statement:\n${rows.join('\n')}`);
      expected.forEach((pattern, i) => assert.match(lines[i], pattern));
    } finally {
      await investor.context.close();
      await staff.context.close();
    }
    assert.deepEqual([...investor.problems, ...staff.problems], [], 'no uncaught errors or CSP violations in the pages');
  });
});
