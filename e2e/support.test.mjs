// The Help Center and the public site's content in a real browser against a running server: a
// visitor sends the contact form, staff find the message on /support-tickets and reply, and the
// reply arrives in the visitor's mailbox; the FAQ opens one answer at a time; the static pages
// and "how it works" show the operator's content, labelled as a sample where it is one. Same
// environment as identity.test.mjs (the file mailbox and the demo admin).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import { adminCredentials, button, expectAccessible, field, heading, mailMark, signIn, toast, uniqueEmail, waitForMail, withBrowser, withSuiteBrowser } from './flows.mjs';

// The questions shown open, once exactly `count` are: React applies a click's state after the
// click's own promise resolves, so the page is asked to get there rather than read at once.
async function expandedQuestions(page, count) {
  await page.waitForFunction((n) => document.querySelectorAll('#faq button[aria-expanded="true"]').length === n, count);
  return page.locator('#faq button[aria-expanded="true"]').allTextContents();
}

describe(`Help Center and site content against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('a visitor writes to support, staff reply from the queue, and the reply arrives by e-mail', async () => {
    const visitorEmail = uniqueEmail('support');
    const question = `Where is my deposit? (${visitorEmail})`;
    await withBrowser(suite.browser, async ({ page }) => {
      await page.goto(url('/support'));
      await heading(page, 'Help Center').waitFor();
      await page.getByRole('link', { name: /@/ }).first().waitFor();
      await expectAccessible(page, '/support');

      await field(page, 'Your name').fill('Vera Visitor');
      await field(page, 'Email').fill(visitorEmail);
      await field(page, 'Message').fill(question);
      await button(page, 'Send message').click();
      await toast(page, 'Message sent successfully!').waitFor();
      assert.equal(await field(page, 'Message').inputValue(), '');
    }, { viewport: { width: 375, height: 740 } });

    const admin = adminCredentials();
    const reply = 'Your deposit arrived and is credited to your wallet.';
    await withBrowser(suite.browser, async ({ page }) => {
      await signIn(page, admin.email, admin.password);
      await page.goto(url('/support-tickets'));
      await heading(page, 'Support Tickets').waitFor();
      const ticket = page.getByTestId('support-ticket').filter({ hasText: visitorEmail });
      await ticket.getByText(question).waitFor();
      await ticket.getByText('Open', { exact: true }).waitFor();
      await expectAccessible(page, '/support-tickets');

      const mark = await mailMark();
      await ticket.getByRole('button', { name: 'Reply to Vera Visitor' }).click();
      const dialog = page.getByRole('dialog', { name: 'Reply to Vera Visitor' });
      await dialog.getByLabel('Reply').fill(reply);
      await expectAccessible(page, '/support-tickets (reply dialog)');
      await dialog.getByRole('button', { name: 'Send reply' }).click();
      await toast(page, 'Reply sent.').waitFor();
      await ticket.getByText('Answered', { exact: true }).waitFor();

      const mail = await waitForMail(visitorEmail, { mark, subject: /support/i });
      assert.match(mail.text, /Hello Vera Visitor/);
      assert.ok(mail.text.includes(reply), `the reply is in the e-mail:\n${mail.text}`);
      assert.ok(mail.text.includes(question), `the e-mail quotes the question:\n${mail.text}`);
    });
  });

  it('the FAQ on /support opens one answer at a time and closes the open one when pressed again', async () => {
    await withBrowser(suite.browser, async ({ page }) => {
      await page.goto(url('/support'));
      const questions = page.locator('#faq button[aria-controls]');
      await questions.first().waitFor();
      assert.equal(await questions.count(), 8);
      assert.deepEqual(await expandedQuestions(page, 0), []);

      const first = questions.nth(0);
      const second = questions.nth(1);
      await first.click();
      assert.deepEqual(await expandedQuestions(page, 1), [await first.textContent()]);
      const panel = page.locator(`#${await first.getAttribute('aria-controls')}`);
      await panel.waitFor();
      await expectAccessible(page, '/support (FAQ open)');

      await second.click();
      await page.locator(`#faq button[aria-expanded="true"]`).filter({ hasText: await second.textContent() }).waitFor();
      assert.deepEqual(await expandedQuestions(page, 1), [await second.textContent()]);
      await panel.waitFor({ state: 'hidden' });

      // By keyboard: the focused question closes again with Enter.
      await second.focus();
      await page.keyboard.press('Enter');
      assert.deepEqual(await expandedQuestions(page, 0), []);
    });
  });

  it('the static pages and how it works show their content, labelled as samples', async () => {
    await withBrowser(suite.browser, async ({ page }) => {
      for (const [path, title, text] of [
        ['/privacy-policy', 'Privacy Policy', 'What we collect'],
        ['/license', 'License', 'Who operates this service'],
        ['/our-story', 'Our Story', 'Why Clearvest'],
      ]) {
        await page.goto(url(path));
        await heading(page, title).waitFor();
        await page.getByRole('heading', { level: 2, name: text }).waitFor();
        await page.getByText('Sample text', { exact: true }).waitFor();
        await expectAccessible(page, path);
      }

      await page.goto(url('/how-it-works'));
      await heading(page, 'How It Works').waitFor();
      await page.getByRole('heading', { level: 2, name: 'Verify your identity (KYC)' }).waitFor();
      assert.equal(await page.getByTestId('how-step').count(), 7);
      await expectAccessible(page, '/how-it-works');
    });
  });
});
