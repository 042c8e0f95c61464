// Staff e-mail in a real browser against a running server: two new investors sign up, the demo
// admin writes to every investor on /compose-email, checks the server-rendered preview, sends it,
// follows its progress to the end, finds it among the sent e-mails, and the message arrives in
// each investor's mailbox with its Markdown formatting and without the raw HTML that was typed.
// Same environment as identity.test.mjs (the file mailbox and the demo admin).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import { adminCredentials, button, expectAccessible, field, heading, mailMark, signIn, signUpVerified, toast, uniqueEmail, waitForMail, withBrowser, withSuiteBrowser } from './flows.mjs';

describe(`Staff e-mail against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('a bulk e-mail to all investors shows its progress and arrives', async () => {
    const investors = [uniqueEmail('bulk-a'), uniqueEmail('bulk-b')];
    for (const [i, email] of investors.entries()) {
      await withBrowser(suite.browser, ({ page }) => signUpVerified(page, { name: `Bulk Reader ${i + 1}`, email }));
    }

    const admin = adminCredentials();
    const subject = `Maintenance on Sunday ${Date.now()}`;
    await withBrowser(suite.browser, async ({ page }) => {
      await signIn(page, admin.email, admin.password);
      await page.goto(url('/compose-email'));
      await heading(page, 'Send e-mail').waitFor();
      await page.getByRole('heading', { level: 2, name: 'Sent e-mails' }).waitFor();
      await expectAccessible(page, '/compose-email');

      await page.getByRole('radio', { name: 'Everyone with a role (verified addresses)' }).check();
      await field(page, 'Role').selectOption('subscriber');
      await field(page, 'Subject').fill(subject);
      await field(page, 'Message').fill('The site is **down** for an hour.\n\n<script>alert(1)</script>\n\n- Deposits wait\n- Nothing is lost');
      await button(page, 'Preview').click();
      const preview = page.getByRole('region', { name: 'Preview' });
      await preview.waitFor();
      const recipients = Number((await page.getByTestId('preview-recipients').textContent()).match(/\d+/)?.[0]);
      assert.ok(recipients >= 2, `the preview counts the investors (${recipients})`);
      const mailPreview = page.getByTestId('preview-mail');
      await mailPreview.locator('strong', { hasText: 'down' }).waitFor();
      assert.equal(await mailPreview.locator('script').count(), 0, 'no raw HTML in the preview');
      await expectAccessible(page, '/compose-email (preview)');

      const mark = await mailMark();
      await page.getByRole('button', { name: /^Send to \d+ people$/ }).click();
      await toast(page, 'E-mail queued for sending.').waitFor();
      const progress = page.getByTestId('broadcast-progress');
      await progress.waitFor();
      await progress.getByText('Sent', { exact: true }).waitFor();
      await page.locator('[data-testid="broadcast-progress"][data-status="done"]').waitFor({ timeout: 30_000 });
      assert.equal(Number(await page.getByTestId('progress-sent').textContent()), recipients);
      await expectAccessible(page, '/compose-email (sent)');

      const sent = page.getByTestId('broadcast-item').filter({ hasText: subject });
      await sent.waitFor();
      await sent.getByText('To Investors').waitFor();

      for (const email of investors) {
        const mail = await waitForMail(email, { mark, subject: new RegExp(subject) });
        assert.match(mail.text, /Hello Bulk Reader/);
        assert.ok(mail.text.includes('The site is **down** for an hour.'), `the message is in the e-mail:\n${mail.text}`);
      }
    }, { viewport: { width: 375, height: 740 } });
  });
});
