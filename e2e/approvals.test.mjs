// The four-eyes rule end to end in a real browser against a running server: an investor asks
// to deposit $20,000.00; an author confirms it, which is above the threshold, so it becomes a
// proposal; the author cannot approve their own proposal (no button, and the server answers 403);
// an admin, a second person, approves it on Second Approvals and the investor's dashboard shows
// the credit. Same environment as deposits.test.mjs (E2E_BASE_URL, E2E_MAIL_DIR, the demo admin,
// CHROMIUM_PATH); E2E_SCREENSHOT_DIR, when set, receives phone and desktop screenshots of the page.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import { adminCredentials, api, button, dismissToast, expectAccessible, heading, requestDeposit, screenshotSizes, signIn, signUpVerified, toast, uniqueEmail, withSuiteBrowser } from './flows.mjs';


describe(`second approvals against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('an author proposes a $20,000 deposit confirmation, cannot approve it, and a second staff member who is an admin does', async () => {
    const admin = adminCredentials();
    const investor = await flows.freshBrowser(suite.browser);
    const author = await flows.freshBrowser(suite.browser);
    const approver = await flows.freshBrowser(suite.browser);
    try {
      await signUpVerified(investor.page, { email: uniqueEmail('four-eyes-investor'), name: 'Fay Foureyes' });
      const { transactionId } = await requestDeposit(investor.page, '20000');

      // The author: a new account an admin makes an author (one admin may grant that role).
      const authorEmail = uniqueEmail('four-eyes-author');
      await signUpVerified(author.page, { email: authorEmail, name: 'Avery Author' });
      const me = await api(author.page, 'GET', '/api/users/getUser');
      await signIn(approver.page, admin.email, admin.password);
      const made = await api(approver.page, 'POST', '/api/users/upgradeUser', { id: me.body._id, role: 'author' });
      assert.equal(made.status, 200, JSON.stringify(made.body));

      // The author confirms $20,000.00: the page says beforehand that a second person must approve.
      await author.page.goto(url(`/transaction/${transactionId}`));
      await heading(author.page, 'Payment Details').waitFor();
      await author.page.getByLabel('Amount received (USD)').fill('20000.00');
      await author.page.getByTestId('deposit-needs-second').waitFor();
      await button(author.page, 'Send for a second approval').click();
      await author.page.getByText('Please give the reason for the second staff member in the notes').waitFor();
      await author.page.getByLabel(/Notes/).fill('Arrived in full; above the threshold.');
      await button(author.page, 'Send for a second approval').click();
      await toast(author.page, 'Sent to a second staff member for approval').waitFor();
      await dismissToast(author.page, 'Sent to a second staff member for approval');
      const status = author.page.getByTestId('deposit-awaiting-second');
      await status.getByRole('heading', { name: 'Waiting for a second staff member' }).waitFor();
      assert.equal(await author.page.getByTestId('deposit-status').textContent(), 'Pending');

      // On Second Approvals the author sees their proposal waiting, with no way to approve it.
      await status.getByRole('link', { name: 'Open Second Approvals' }).click();
      await heading(author.page, 'Second Approvals').waitFor();
      const mine = author.page.getByTestId('proposal-item').filter({ hasText: transactionId });
      await mine.getByText('Waiting for a second staff member').waitFor();
      assert.equal(await mine.getByRole('button').count(), 0, 'the proposer has no buttons');
      const list = await api(author.page, 'GET', '/api/proposals');
      const proposal = list.body.pending.find((p) => p.subjectId === transactionId);
      assert.ok(proposal, JSON.stringify(list.body));
      // The proposer deciding their own proposal, refused (403) on purpose.
      const [own, ownReject] = await flows.allowConsoleErrors(author, async () => [
        await api(author.page, 'POST', `/api/proposals/${proposal.id}/approve`, {}),
        await api(author.page, 'POST', `/api/proposals/${proposal.id}/reject`, { reason: 'mine' }),
      ]);
      assert.equal(own.status, 403, JSON.stringify(own.body));
      assert.equal(ownReject.status, 403, JSON.stringify(ownReject.body));

      // The admin approves it on the same page.
      await approver.page.goto(url('/approvals'));
      await heading(approver.page, 'Second Approvals').waitFor();
      const item = approver.page.getByTestId('proposal-item').filter({ hasText: transactionId });
      await item.getByText('Avery Author', { exact: false }).waitFor();
      await expectAccessible(approver.page, '/approvals');
      await screenshotSizes(approver.page, 'approvals');
      await item.getByRole('button', { name: 'Approve' }).click();
      const dialog = approver.page.getByRole('dialog', { name: 'Approve: Deposit confirmation' });
      await dialog.getByLabel(/Reason/).fill('Checked the wallet: $20,000.00 arrived.');
      await expectAccessible(approver.page, '/approvals (approve dialog)');
      await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
      // A decision needs a fresh confirmation: the page asks before it sends the approval.
      await flows.confirmItsMe(approver.page, { password: admin.password });
      await toast(approver.page, 'Approved and carried out').waitFor();
      const decided = approver.page.getByTestId('proposal-decided').filter({ hasText: transactionId });
      await decided.getByText('Approved', { exact: true }).waitFor();
      await decided.getByText('Checked the wallet', { exact: false }).waitFor();

      // The investor sees the credit.
      await investor.page.goto(url('/my-account'));
      const figure = investor.page.locator('.figure').filter({ hasText: 'Available balance' });
      await figure.getByText('$20,000.00').waitFor();
    } finally {
      await investor.context.close();
      await author.context.close();
      await approver.context.close();
    }
    assert.deepEqual([...investor.problems, ...author.problems, ...approver.problems], [], 'no uncaught errors or CSP violations in the pages');
  });
  it('a queue open in one staff session drops the deposit another staff member decides, and an admin decides a proposal from the keyboard', async () => {
    const admin = adminCredentials();
    const investor = await flows.freshBrowser(suite.browser);
    const author = await flows.freshBrowser(suite.browser);
    const approver = await flows.freshBrowser(suite.browser);
    try {
      await signUpVerified(investor.page, { email: uniqueEmail('live-queue-investor'), name: 'Lena Livequeue' });
      const small = await requestDeposit(investor.page, '50');
      const large = await requestDeposit(investor.page, '20000');

      const authorEmail = uniqueEmail('live-queue-author');
      await signUpVerified(author.page, { email: authorEmail, name: 'Kai Keyboard' });
      const me = await api(author.page, 'GET', '/api/users/getUser');
      await signIn(approver.page, admin.email, admin.password);
      const made = await api(approver.page, 'POST', '/api/users/upgradeUser', { id: me.body._id, role: 'author' });
      assert.equal(made.status, 200, JSON.stringify(made.body));

      // The author watches the deposit queue; the admin confirms the small deposit elsewhere, and
      // it leaves the author's queue without a reload.
      await author.page.goto(url('/admin-pending-deposit'));
      await heading(author.page, 'Pending Deposits').waitFor();
      const item = author.page.getByTestId('deposit-queue-item').filter({ hasText: small.transactionId });
      await item.waitFor();
      await author.page.getByText('Keyboard shortcuts').waitFor();
      const confirmed = await api(approver.page, 'PATCH', '/api/payments/confirmPayment', { transactionId: small.transactionId, amount: '50' });
      assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
      await item.waitFor({ state: 'detached' });

      // The author sends the large one for a second approval; the admin decides it from the keyboard.
      const proposed = await api(author.page, 'PATCH', '/api/payments/confirmPayment', {
        transactionId: large.transactionId,
        amount: '20000',
        notes: 'Arrived in full; above the threshold.',
      });
      assert.equal(proposed.status, 202, JSON.stringify(proposed.body));
      await approver.page.goto(url('/approvals'));
      await heading(approver.page, 'Second Approvals').waitFor();
      const mine = approver.page.getByTestId('proposal-item').filter({ hasText: large.transactionId });
      await mine.waitFor();
      const count = await approver.page.getByTestId('proposal-item').count();
      await approver.page.locator('main').focus();
      let on = false;
      for (let i = 0; i < count && !on; i++) {
        await approver.page.keyboard.press('j');
        on = await mine.evaluate((el) => el === document.activeElement);
      }
      assert.ok(on, 'j reaches the proposal');
      await approver.page.keyboard.press('a');
      const dialog = approver.page.getByRole('dialog', { name: 'Approve: Deposit confirmation' });
      await dialog.getByLabel(/Reason/).fill('Checked the wallet from the keyboard.');
      await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
      await flows.confirmItsMe(approver.page, { password: admin.password });
      await toast(approver.page, 'Approved and carried out').waitFor();
      await approver.page.getByTestId('proposal-decided').filter({ hasText: large.transactionId }).waitFor();
    } finally {
      await investor.context.close();
      await author.context.close();
      await approver.context.close();
    }
    assert.deepEqual([...investor.problems, ...author.problems, ...approver.problems], [], 'no uncaught errors or CSP violations in the pages');
  });
});
