// Staff corrections and fees end to end in a real browser against a running server: an admin
// proposes a $900.00 goodwill correction on /edit-user-balance (above the $500.00 threshold, so it
// waits for a second admin); a second admin approves it on Second Approvals; the investor sees it
// in their history with its reason, after confirming it's them with a passkey (Chromium's virtual
// authenticator; the test runs at localhost, since a passkey's relying party cannot be an IP
// address). Then an admin waives a charged withdrawal fee on /update-fee,
// and the investor sees it refunded on the withdrawal and in the history. The second admin is
// made with `clearvest admin create` on the server's database (E2E_DATABASE_URL, exported by
// scripts/lib/server.sh); the rest of the environment is deposits.test.mjs's.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { describe, it } from 'node:test';

import { addVirtualAuthenticator, localBaseURL, stepUpWithPasskey } from './passkeys.mjs';

process.env.E2E_BASE_URL = localBaseURL();
const { BASE_URL, url } = await import('./browser.mjs');
const flows = await import('./flows.mjs');
const { adminCredentials, api, button, confirmItsMe, expectAccessible, heading, PASSWORD, screenshot, signIn, signUpVerified, toast, uniqueEmail, uploadIdentity, withSuiteBrowser } = flows;

const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

// A second admin, created with the command line on the server's database and data directory.
function secondAdmin() {
  const db = process.env.E2E_DATABASE_URL;
  const mailDir = process.env.E2E_MAIL_DIR;
  assert.ok(db && mailDir, 'E2E_DATABASE_URL and E2E_MAIL_DIR name the server under test');
  const email = uniqueEmail('second-admin');
  execFileSync(process.env.E2E_CLEARVEST_BIN ?? 'bin/clearvest', ['admin', 'create', '--email', email, '--password', PASSWORD, '--name', 'Bea Second'], {
    env: { ...process.env, DATABASE_URL: db, CLEARVEST_DATA_DIR: dirname(mailDir), CLEARVEST_ENV: 'development' },
    stdio: 'pipe',
  });
  return { email, password: PASSWORD };
}

// Clicks a button that may ask the person to confirm it's them first (an admin's change of a
// user's money does), answers with their password, and waits for the toast.
async function clickThroughStepUp(page, target, toastText, password = PASSWORD) {
  await target.click();
  const stepUp = page.getByRole('dialog', { name: "Confirm it's you" });
  const done = toast(page, toastText);
  await done.or(stepUp).first().waitFor();
  if (await stepUp.isVisible()) await confirmItsMe(page, { password });
  await done.waitFor();
}

describe(`corrections and fees against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('a $900 correction waits for a second admin, the investor sees it with its reason, and a waived fee shows as refunded', async () => {
    const first = adminCredentials();
    const second = secondAdmin();
    const investor = await flows.freshBrowser(suite.browser);
    const proposer = await flows.freshBrowser(suite.browser);
    const approver = await flows.freshBrowser(suite.browser);
    try {
      await signUpVerified(investor.page, { email: uniqueEmail('corrections-investor'), name: 'Cora Correct' });
      const me = await api(investor.page, 'GET', '/api/users/getUser');
      const investorID = me.body._id;
      await signIn(proposer.page, first.email, first.password);
      await signIn(approver.page, second.email, second.password);
      // The second admin confirms decisions with a passkey, added on their Security tab.
      await addVirtualAuthenticator(await approver.context.newCDPSession(approver.page));
      await approver.page.goto(url('/user-profile?tab=security'));
      const passkeys = approver.page.getByRole('region', { name: 'Your passkeys' });
      await passkeys.getByLabel('Name of the new passkey').fill('Office laptop');
      await passkeys.getByRole('button', { name: 'Add a passkey' }).click();
      await toast(approver.page, 'Passkey added').waitFor();
      await flows.dismissToast(approver.page, 'Passkey added');

      // The first admin proposes $900.00 of goodwill: the confirmation shows the figures first.
      const reason = 'Goodwill for the outage of 3 May';
      await proposer.page.goto(url(`/edit-user-balance/${investorID}`));
      await heading(proposer.page, 'Correct the balance').waitFor();
      await expectAccessible(proposer.page, '/edit-user-balance');
      await proposer.page.getByTestId('correction-amount').fill('900');
      await proposer.page.getByLabel('Category').selectOption('goodwill');
      await proposer.page.getByTestId('correction-reason').fill(reason);
      await button(proposer.page, 'Review').click();
      const dialog = proposer.page.getByRole('dialog', { name: 'Confirm the correction' });
      await dialog.getByTestId('correction-after').getByText('$900.00').waitFor();
      await dialog.getByText('it will be sent to a second admin', { exact: false }).waitFor();
      await expectAccessible(proposer.page, '/edit-user-balance (confirmation)');
      await clickThroughStepUp(proposer.page, dialog.getByRole('button', { name: 'Send for approval' }), 'Sent to a second staff member for approval', first.password);
      await proposer.page.getByTestId('correction-proposed').waitFor();

      // The second admin approves it on Second Approvals, where it reads as a balance correction.
      await approver.page.goto(url('/approvals'));
      await heading(approver.page, 'Second Approvals').waitFor();
      const item = approver.page.getByTestId('proposal-item').filter({ hasText: 'Cora Correct' });
      await item.getByText('Balance correction of $900.00').waitFor();
      await item.getByText('Add for Cora Correct · Goodwill', { exact: false }).waitFor();
      await item.getByText(reason, { exact: false }).waitFor();
      await item.getByRole('button', { name: 'Approve' }).click();
      const approve = approver.page.getByRole('dialog', { name: 'Approve: Balance correction' });
      await approve.getByRole('button', { name: 'Approve', exact: true }).click();
      await approver.page.getByRole('dialog', { name: "Confirm it's you" }).getByRole('button', { name: 'Use a passkey' }).waitFor();
      await stepUpWithPasskey(approver.page);
      await toast(approver.page, 'Approved and carried out').waitFor();

      // The investor sees it in their history with its reason.
      await investor.page.goto(url('/transaction-History'));
      const row = investor.page.locator('li, tr').filter({ hasText: reason }).first();
      await row.getByText('Balance correction').waitFor();
      await row.getByText('$900.00').waitFor();

      // A withdrawal with a fee, paid out; then the first admin waives the fee.
      assert.equal(await uploadIdentity(investor.page), 200);
      assert.equal((await api(proposer.page, 'PATCH', `/api/users/kyc/${investorID}/approve`, {})).status, 200);
      assert.equal((await api(investor.page, 'POST', '/api/users/step-up', { password: PASSWORD })).status, 200);
      const quote = await api(investor.page, 'POST', '/api/withDraw/quote', { amount: '100', network: 'TRC20' });
      assert.equal(quote.body.fee, '2.00', JSON.stringify(quote.body));
      const created = await api(investor.page, 'POST', '/api/withDraw/create', { amount: '100', network: 'TRC20', walletAddress: TRON_ADDRESS, fee: quote.body.fee });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const paid = await api(proposer.page, 'PUT', `/api/withDraw/approve/${created.body._id}`, { txHash: randomBytes(32).toString('hex') });
      assert.equal(paid.status, 200, JSON.stringify(paid.body));

      await proposer.page.goto(url(`/update-fee/${investorID}`));
      await heading(proposer.page, 'Withdrawal fees').waitFor();
      const fee = proposer.page.getByTestId('fee-item').first();
      await fee.getByRole('button', { name: 'Waive' }).click();
      const waive = proposer.page.getByRole('dialog', { name: 'Waive a withdrawal fee' });
      await waive.getByTestId('waive-reason').fill('First withdrawal is on us');
      await waive.getByRole('button', { name: 'Review' }).click();
      await waive.getByText('$2.00', { exact: false }).first().waitFor();
      await expectAccessible(proposer.page, '/update-fee (confirmation)');
      await clickThroughStepUp(proposer.page, waive.getByRole('button', { name: 'Waive the fee' }), 'Fee waived', first.password);
      await fee.getByTestId('fee-waived').getByText('$2.00').waitFor();

      // The three pages on a phone: nothing wider than the screen, nothing axe refuses.
      await proposer.page.setViewportSize({ width: 375, height: 812 });
      for (const [path, title] of [
        [`/edit-user-balance/${investorID}`, 'Correct the balance'],
        [`/edit-balance/${investorID}`, 'Returns'],
        [`/update-fee/${investorID}`, 'Withdrawal fees'],
      ]) {
        await proposer.page.goto(url(path));
        await heading(proposer.page, title).waitFor();
        await expectAccessible(proposer.page, `${path} (phone)`);
        const overflow = await proposer.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${path} is ${overflow}px wider than a 375 px screen`);
        await screenshot(proposer.page, `corrections-${path.split('/')[1]}-phone.png`, { fullPage: true });
      }

      // The investor sees the fee refunded on the withdrawal and in the history.
      await investor.page.goto(url(`/withdrawal/${created.body._id}`));
      await investor.page.getByTestId('withdrawal-fee-refunded').getByText('$2.00', { exact: false }).waitFor();
      await investor.page.goto(url('/transaction-History'));
      await investor.page.getByText('Withdrawal fee refunded').first().waitFor();
    } finally {
      await investor.context.close();
      await proposer.context.close();
      await approver.context.close();
    }
    assert.deepEqual([...investor.problems, ...proposer.problems, ...approver.problems], [], 'no uncaught errors or CSP violations in the pages');
  });
});
