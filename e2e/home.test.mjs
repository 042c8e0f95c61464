// The home page's data-backed sections end to end: five investors, each with a verified e-mail
// address and a deposit confirmed by staff, write testimonials that staff publish; a visitor then
// sees four of them on the home page, the rest behind "Show More", and "Show Less" folds them
// away again. The FAQ on the same page keeps one answer open at a time. Same environment as
// community.test.mjs (E2E_BASE_URL, E2E_MAIL_DIR, the demo admin, CHROMIUM_PATH). Each investor
// signs up from an address of their own, passed as a reverse proxy would (X-Forwarded-For; the
// test server trusts 127.0.0.1 as its proxy, scripts/test.sh), so these five sign-ups leave the
// rest of the suite its hourly allowance of registrations from one address.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import { adminCredentials, api, confirmedDeposit, expectAccessible, signIn, signUpVerified, uniqueEmail, until, withSuiteBrowser } from './flows.mjs';

const INVESTORS = 5;

describe(`home page against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('shows four published testimonials, the rest behind Show More, and one FAQ answer at a time', async () => {
    const admin = adminCredentials();
    const staff = await flows.freshBrowser(suite.browser);
    const visitor = await flows.freshBrowser(suite.browser);
    const stories = [];
    try {
      await signIn(staff.page, admin.email, admin.password);
      for (let i = 0; i < INVESTORS; i++) {
        const investor = await flows.freshBrowser(suite.browser, { extraHTTPHeaders: { 'X-Forwarded-For': `198.51.100.${i + 1}` } });
        try {
          const { page } = investor;
          const email = uniqueEmail(`home${i}`);
          await signUpVerified(page, { email, name: `Hana Home${i}` });
          await confirmedDeposit(page, staff.page, '150');
          await until(page, '/api/testimonials/mine', (b) => b.eligible);
          const story = `Investor ${i} (${randomBytes(3).toString('hex')}): the terms were clear before I paid anything in.`;
          const written = await api(page, 'POST', '/api/testimonials', { text: story });
          assert.equal(written.status, 201, JSON.stringify(written.body));
          const published = await api(staff.page, 'PUT', `/api/testimonials/${written.body._id}/approve`);
          assert.equal(published.status, 200, JSON.stringify(published.body));
          stories.push(story);
        } finally {
          await investor.context.close();
        }
      }
      const { page } = visitor;
      await page.goto(url('/'));
      const list = await until(page, '/api/testimonials', (b) => stories.every((s) => b.testimonials.some((t) => t.text === s)));
      const total = list.testimonials.length;
      await page.reload();
      const section = page.getByTestId('testimonials-section');
      const cards = section.getByTestId('testimonial');
      await cards.first().waitFor();
      assert.equal(await cards.count(), 4, 'four testimonials at first');
      const more = section.getByRole('button', { name: 'Show More' });
      assert.equal(await more.getAttribute('aria-expanded'), 'false');
      await more.click();
      const less = section.getByRole('button', { name: 'Show Less' });
      await less.waitFor();
      assert.ok((await cards.count()) >= total, `all ${total} testimonials after Show More`);
      assert.equal(await less.getAttribute('aria-expanded'), 'true');
      await expectAccessible(page, '/ (testimonials expanded)');
      await less.click();
      await more.waitFor();
      assert.equal(await cards.count(), 4, 'four again after Show Less');

      // The FAQ: opening one answer closes the other; the open one closes on a second click.
      const faq = page.locator('#faq');
      const questions = faq.getByRole('button');
      await questions.nth(1).waitFor();
      await questions.nth(0).click();
      assert.equal(await questions.nth(0).getAttribute('aria-expanded'), 'true');
      await questions.nth(1).click();
      assert.equal(await questions.nth(1).getAttribute('aria-expanded'), 'true');
      assert.equal(await questions.nth(0).getAttribute('aria-expanded'), 'false', 'one answer open at a time');
      await questions.nth(1).click();
      assert.equal(await questions.nth(1).getAttribute('aria-expanded'), 'false', 'the open answer closes');
      // A long answer scrolls inside a panel at most 500 px tall.
      assert.equal(await faq.locator('.faq__answer').first().evaluate((el) => getComputedStyle(el).maxHeight), '500px');

      // Meet Our Expert Team: the development server shows the six shipped sample profiles, each
      // labelled as a sample (a production server shows none until the operator's are real).
      const team = page.getByTestId('team-section');
      await team.getByTestId('team-card').first().waitFor();
      assert.equal(await team.getByTestId('team-card').count(), 6, 'six sample profiles');
      await team.getByTestId('team-sample-notice').waitFor();
      assert.equal(await team.getByText('Sample profile', { exact: true }).count(), 6, 'every card says it is a sample');

      for (const session of [staff, visitor]) assert.deepEqual(session.problems, [], 'no uncaught errors or CSP violations');
    } finally {
      await staff.context.close();
      await visitor.context.close();
    }
  });
});
