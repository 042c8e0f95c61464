// The community features end to end in a real browser against a running development server:
// real events (a deposit confirmed by staff, an investment in the demo Standard plan approved by
// staff) by an investor whose profile says Iceland show up anonymised in the home page's activity
// ticker; the member-levels page shows the investor's level; the investor shares their
// experience from the dashboard, staff publish it from the review queue, and it is in the
// public list with first name, last initial and country only. axe checks each page. Same
// environment as deposits.test.mjs (E2E_BASE_URL, E2E_MAIL_DIR, the demo admin, CHROMIUM_PATH);
// the server must have the demo plans and a USDT/TRC20 deposit address.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import * as flows from './flows.mjs';
import { adminCredentials, api, confirmedDeposit, expectAccessible, heading, signIn, signUpVerified, toast, uniqueEmail, until, uploadIdentity, withSuiteBrowser } from './flows.mjs';

describe(`community against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser();

  it('real activity in the ticker, anonymised; a level with progress; a testimonial written, published and public', async () => {
    const admin = adminCredentials();
    const email = uniqueEmail('community');
    const story = `Clear terms and a calm dashboard (${randomBytes(3).toString('hex')}): my first plan paid what it said.`;
    const investor = await flows.freshBrowser(suite.browser);
    const staff = await flows.freshBrowser(suite.browser);
    const visitor = await flows.freshBrowser(suite.browser);
    try {
      const { page } = investor;
      await signUpVerified(page, { email, name: 'Ines Communa' });
      assert.equal((await api(page, 'PATCH', '/api/users/updateUser', { country: 'Iceland' })).status, 200);
      const me = await api(page, 'GET', '/api/users/getUser');
      assert.equal(me.status, 200);
      assert.equal(await uploadIdentity(page), 200);
      await signIn(staff.page, admin.email, admin.password);
      assert.equal((await api(staff.page, 'PATCH', `/api/users/kyc/${me.body._id}/approve`, {})).status, 200);

      // A deposit confirmed by staff, an investment approved by staff.
      await confirmedDeposit(page, staff.page, '400');
      const quote = await api(page, 'GET', '/api/invest/quote?planName=Standard&amount=300');
      assert.equal(quote.status, 200, JSON.stringify(quote.body));
      const invested = await api(page, 'POST', '/api/invest/start-invest', { planName: 'Standard', amount: '300', planVersion: quote.body.planVersion });
      assert.equal(invested.status, 200, JSON.stringify(invested.body));
      const approved = await api(staff.page, 'PUT', `/api/invest/${invested.body._id}/approve`);
      assert.equal(approved.status, 200, JSON.stringify(approved.body));

      // The ticker on the home page, for a visitor: the newest activity first, anonymised, with no
      // name or amount.
      const started = 'An investor from Iceland started a Standard plan';
      await visitor.page.goto(url('/'));
      await until(visitor.page, '/api/public/activity', (b) => b.activities[0]?.message === started);
      await visitor.page.reload();
      const ticker = visitor.page.getByRole('region', { name: 'Recent investor activity' });
      await ticker.getByText(started).waitFor();
      const tickerText = await ticker.textContent();
      assert.doesNotMatch(tickerText, /Ines|Communa|\$|300|400/);
      await visitor.page.goto(url('/Hierarchy'));
      await heading(visitor.page, 'Member Levels').waitFor();
      // The levels come from the server after the page: wait for them before counting.
      await visitor.page.getByTestId('badge-level').first().waitFor();
      assert.equal(await visitor.page.getByTestId('badge-level').count(), 4);
      assert.equal(await visitor.page.getByTestId('my-badge').count(), 0, 'a visitor has no level');
      await expectAccessible(visitor.page, '/Hierarchy (visitor)');

      // The investor's level: a member with $300 of the $1,000 a leader needs.
      await page.goto(url('/Hierarchy'));
      const mine = page.getByTestId('my-badge');
      await mine.getByRole('heading', { name: 'Your level: Member' }).waitFor();
      assert.match(await mine.textContent(), /You have invested \$300 in total/);
      assert.equal(await mine.getByRole('progressbar').getAttribute('value'), '15');
      await expectAccessible(page, '/Hierarchy (investor)');

      // The testimonial, on its own page, linked from the dashboard.
      await until(page, '/api/testimonials/mine', (b) => b.eligible);
      await page.goto(url('/my-account'));
      await page.getByRole('link', { name: 'Write a testimonial' }).click();
      await heading(page, 'Share your experience').waitFor();
      const card = page.getByTestId('share-experience');
      await card.getByLabel('Your experience with Clearvest').fill(story);
      await expectAccessible(page, '/share-your-experience');
      await card.getByRole('button', { name: 'Share my experience' }).click();
      await toast(page, 'Thank you!').waitFor();
      await card.getByText('Under review').waitFor();

      // Staff publish it from the review queue.
      await staff.page.goto(url('/pending-testimonials'));
      await heading(staff.page, 'Testimonial Review').waitFor();
      const item = staff.page.getByTestId('testimonial-queue-item').filter({ hasText: story });
      await item.waitFor();
      await expectAccessible(staff.page, '/pending-testimonials');
      await item.getByRole('button', { name: 'Publish', exact: true }).click();
      await toast(staff.page, 'Testimonial published.').waitFor();
      await item.waitFor({ state: 'detached' });

      // Public, with the first name, the last initial and the country only.
      const list = await until(visitor.page, '/api/testimonials', (b) => b.testimonials.some((t) => t.text === story));
      const published = list.testimonials.find((t) => t.text === story);
      assert.deepEqual({ name: published.name, country: published.country }, { name: 'Ines C.', country: 'Iceland' });
      assert.doesNotMatch(JSON.stringify(list), new RegExp(email.replace(/[.+]/g, '\\$&')));
      // A second decision is refused.
      // A decision on a decided testimonial, refused (409) on purpose.
      const late = await flows.allowConsoleErrors(staff, () => api(staff.page, 'PUT', `/api/testimonials/${published._id}/reject`, { reason: 'Late' }));
      assert.equal(late.status, 409);

      for (const session of [investor, staff, visitor]) assert.deepEqual(session.problems, [], 'no console errors, uncaught errors or CSP violations');
    } finally {
      await investor.context.close();
      await staff.context.close();
      await visitor.context.close();
    }
  });
});
