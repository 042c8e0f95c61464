// The money story end to end in a real browser against a running development server, one
// investor through the real pages and real e-mails: a deposit on the deposit page, confirmed by
// staff on the payment page; an investment in the demo Basic plan (seeing the APR, the exact
// payout and the risk notice first), approved by staff from the queue; the development test
// clock moved on by the term; the matured balance exact to the cent; a withdrawal with its fee
// shown before confirming, approved by staff with the payout hash; the portfolio and the matured
// investment's page with what it paid, linking to the payout's row in the history; and the
// history (one row per money movement, pending ones apart) and a CSV statement showing every
// step, on a desktop and a phone. Same environment as deposits.test.mjs (E2E_BASE_URL,
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
      const row = page.getByTestId('portfolio-active').getByTestId('investment-item').first();
      await row.getByTestId('investment-status').getByText('Active').waitFor();
      const totals = page.getByTestId('portfolio-totals');
      await totals.locator('.figure').filter({ hasText: 'Invested now' }).getByText('$200.05').waitFor();
      await totals.locator('.figure').filter({ hasText: 'Expected returns' }).getByText('$0.80').waitFor();
      const bar = row.getByRole('progressbar', { name: 'Term of the Basic investment' });
      assert.equal(await bar.getAttribute('aria-valuemax'), '30');
      assert.equal(await bar.getAttribute('aria-valuetext'), '0 of 30 days');
      await expectAccessible(page, '/invest-status');
      await row.getByRole('link').click();
      await heading(page, 'Investment Details').waitFor();
      const investmentPath = new URL(page.url()).pathname;
      const investmentRef = (await page.getByTestId('investment-reference').textContent()).trim();
      assert.match(investmentRef, /^INV-[0-9A-HJKMNP-TV-Z]{8}$/);
      await page.getByTestId('investment-progress').getByText(/Accrued to date \(an estimate\)/).waitFor();
      await page.getByTestId('investment-payout').getByText('$200.85').waitFor();
      await expectAccessible(page, '/investment/:investmentId');
      await page.goto(url('/my-account'));
      await page.locator('.figure').filter({ hasText: 'Available balance' }).getByText('$49.95').waitFor();

      // 5. The term passes: the test clock moves 30 days on (development only), as the admin.
      mark = await mailMark();
      const moved = await api(staff.page, 'POST', '/api/dev/clock', { advance: '720h' });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      // That ends every session made before, on purpose: until each person signs in again, the
      // pages still open are told their session has ended (a 401 the browser logs), and only that
      // is allowed (checked at the end).
      investor.allowing += 1;
      staff.allowing += 1;
      await waitForMail(email, { mark, subject: /matured/ });

      // 6. Sessions made before the move have ended; the dashboard shows $250.00 − $200.05 +
      // $200.85, to the cent.
      await login(page, email, PASSWORD);
      const available = page.locator('.figure').filter({ hasText: 'Available balance' });
      await available.getByText('$250.80').waitFor();
      // A query the ended session had started (the invest gate's eligibility, refreshed by the
      // payout's events) may still be refused while the new one settles in.
      investor.allowing -= 1;
      await page.locator('.figure').filter({ hasText: 'Invested' }).getByText('$0.00').waitFor();
      await expectAccessible(page, '/my-account (matured)');

      // The portfolio: the investment has ended, with what it earned; its page says what it paid
      // and when, and leads to the payout's row in the history.
      await page.goto(url('/invest-status'));
      await heading(page, 'My Portfolio').waitFor();
      const endedRow = page.getByTestId('portfolio-ended').getByTestId('investment-item');
      await endedRow.getByTestId('investment-status').getByText('Matured').waitFor();
      await endedRow.getByText('paid $200.85').waitFor();
      await page.getByTestId('portfolio-active').getByText('No investment is running.').waitFor();
      await page.getByTestId('portfolio-totals').locator('.figure').filter({ hasText: 'Returns earned so far' }).getByText('$0.80').waitFor();
      await expectAccessible(page, '/invest-status (matured)');
      await page.goto(url(investmentPath));
      const outcome = page.getByTestId('investment-outcome');
      await outcome.getByRole('heading', { name: 'Paid out' }).waitFor();
      assert.match(await outcome.textContent(), /paid \$200\.85 into your available balance: your \$200\.05 back and a return of \$0\.80/);
      await expectAccessible(page, '/investment/:investmentId (matured)');
      await outcome.getByRole('link', { name: 'See the payout in your history' }).click();
      await heading(page, 'Transaction History').waitFor();
      const payoutRow = page.locator('[data-testid="movement"][aria-current="true"]');
      await payoutRow.getByText('Payout from Basic plan').waitFor();
      await payoutRow.getByText('+$200.85').waitFor();
      assert.equal(await payoutRow.getAttribute('data-reference'), investmentRef);
      await expectAccessible(page, '/transaction-History?ref= (the payout)');

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

      // Waiting for staff, the withdrawal and its fee are at the top of the history, apart.
      await page.goto(url('/transaction-History'));
      const waiting = page.getByTestId('history-pending').getByTestId('movement');
      await waiting.filter({ hasText: 'Withdrawal to USDT (TRC20)' }).getByText('-$98.00').waitFor();
      await waiting.filter({ hasText: 'Withdrawal fee' }).getByText('-$2.00').waitFor();
      assert.equal(await waiting.count(), 2);
      await expectAccessible(page, '/transaction-History (withdrawal pending)');

      // 8. Staff approve it with the payout transaction. The investment queue left open has
      // heard of the new request (the staff stream) and found the session ended, so it sent the
      // page to sign in and return there; this sign-in starts afresh and lands on the dashboard.
      await staff.page.goto(url('/'));
      await login(staff.page, admin.email, admin.password);
      staff.allowing -= 1;
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

      // 9. The history: one row per movement, newest first, nothing pending.
      await page.goto(url('/transaction-History'));
      await heading(page, 'Transaction History').waitFor();
      const rows = page.getByTestId('movement');
      await rows.filter({ hasText: 'Withdrawal to USDT (TRC20)' }).getByText('Sent').waitFor();
      const want = [
        ['Withdrawal to USDT (TRC20)', '-$98.00', 'Sent'],
        ['Withdrawal fee', '-$2.00', 'Charged'],
        ['Payout from Basic plan', '+$200.85', 'Paid out'],
        ['Investment in Basic plan', '-$200.05', 'Matured'],
        ['Deposit via USDT (TRC20)', '+$250.00', 'Credited'],
      ];
      const text = await rows.allTextContents();
      assert.equal(text.length, want.length, `history rows: ${text.join(' | ')}`);
      want.forEach((parts, i) => parts.forEach((part) => assert.ok(text[i].includes(part), `row ${i} is "${text[i]}", want ${part}`)));
      assert.equal(await page.getByTestId('history-pending').count(), 0);
      assert.ok(text[0].includes(text[1].match(/WDR-[0-9A-Z]{8}/)?.[0] ?? 'no reference'), 'the fee carries its withdrawal\'s reference');
      assert.ok(!/[0-9a-f]{8}-[0-9a-f]{4}-/.test(text.join(' ')), 'no raw id is shown');
      await expectAccessible(page, '/transaction-History (the whole story)');

      // 10. The statement of the whole period (the server's clock is 30 days ahead of the
      // browser's), read from the file the browser saved: one line per change of the balance.
      await page.getByLabel('Statement from').fill(utcDay(-1));
      await page.getByLabel('Statement to').fill(utcDay(40));
      const [download] = await Promise.all([page.waitForEvent('download'), button(page, 'Download statement (CSV)').click()]);
      const lines = (await readFile(await download.path(), 'utf8')).trimEnd().split('\r\n');
      assert.equal(lines[0], 'Date (UTC),Type,Reference,Details,Amount,Balance after');
      const expected = [
        /,Opening balance,,,,0\.00$/,
        new RegExp(`,Deposit,${transactionId},USDT \\(TRC20\\),250\\.00,250\\.00$`),
        new RegExp(`,Investment,${investmentRef},Basic plan,-200\\.05,49\\.95$`),
        new RegExp(`,Investment payout,${investmentRef},Basic plan; principal 200\\.05 \\+ return 0\\.80,200\\.85,250\\.80$`),
        new RegExp(`,Withdrawal,WDR-[0-9A-Z]{8},USDT \\(TRC20\\); ${TRON_ADDRESS},-98\\.00,152\\.80$`),
        /,Withdrawal fee,WDR-[0-9A-Z]{8},,-2\.00,150\.80$/,
        /,Closing balance,,,,150\.80$/,
      ];
      assert.equal(lines.length - 1, expected.length, `statement:\n${lines.join('\n')}`);
      expected.forEach((pattern, i) => assert.match(lines[i + 1], pattern));

      // 11. On a phone, the history, the portfolio and the matured investment fit the screen.
      await page.setViewportSize({ width: 375, height: 812 });
      for (const [path, title] of [
        ['/transaction-History', 'Transaction History'],
        ['/invest-status', 'My Portfolio'],
        [investmentPath, 'Investment Details'],
      ]) {
        await page.goto(url(path));
        await heading(page, title).waitFor();
        await page.getByText('$200.85').first().waitFor();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} is ${overflow}px wider than a 375px screen`);
        await expectAccessible(page, `${path} (phone)`);
      }
    } finally {
      await investor.context.close();
      await staff.context.close();
    }
    assert.deepEqual([...investor.problems, ...staff.problems], [], 'no console errors, uncaught errors or CSP violations in the pages');
    const ended = [...investor.allowed, ...staff.allowed].filter((text) => !/status of 401 \(Unauthorized\)/.test(text));
    assert.deepEqual(ended, [], 'after the clock move, only the ended sessions are refused');
  });
});
