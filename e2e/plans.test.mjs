// The plan catalogue in a real browser against a running development server: /investment-plans
// shows the four demo plans (created by the demo seed, docs/plans.md "Demo plans") with their
// annualised rates and worked examples, on a phone and on a desktop, passes axe, and its buttons
// work from the keyboard. The page arrives with the plans in its HTML: complete without JavaScript,
// and taken over by the app without a second fetch or a layout shift. Same environment as
// smoke.test.mjs (E2E_BASE_URL, CHROMIUM_PATH); E2E_SCREENSHOT_DIR, when set, receives a
// screenshot of the page without JavaScript.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BASE_URL, CONTEXT_DEFAULTS, STEP_TIMEOUT_MS, url } from './browser.mjs';
import { expectAccessible, heading, screenshot, withBrowser, withSuiteBrowser } from './flows.mjs';

const PHONE = { viewport: { width: 375, height: 812 }, hasTouch: true, isMobile: true };
const DESKTOP = { viewport: { width: 1280, height: 900 } };

// The demo plans as docs/plans.md lists them: name, range, term, rate for the term, APR and the
// worked example for the minimum.
const DEMO_PLANS = [
  { name: 'Basic', range: '$100.00 to $250.00', term: '30 days', rate: '0.40%', apr: '4.87% a year', payout: 'Invest $100.00 for 30 days → and receive $100.40' },
  { name: 'Standard', range: '$300.00 to $500.00', term: '60 days', rate: '1.00%', apr: '6.08% a year', payout: 'Invest $300.00 for 60 days → and receive $303.00' },
  { name: 'Premium', range: '$600.00 to $1,000.00', term: '90 days', rate: '1.70%', apr: '6.89% a year', payout: 'Invest $600.00 for 90 days → and receive $610.20' },
  { name: 'Elite', range: '$1,500.00 to $5,000.00', term: '180 days', rate: '3.90%', apr: '7.91% a year', payout: 'Invest $1,500.00 for 180 days → and receive $1,558.50' },
];

describe(`plans page against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser({ mail: false });

  it('lists the demo plans with their terms in the API', async () => {
    const response = await fetch(url('/api/invest/plans'), { signal: AbortSignal.timeout(STEP_TIMEOUT_MS) });
    assert.equal(response.status, 200);
    const { plans } = await response.json();
    assert.deepEqual(
      plans.map((p) => [p.name, p.min, p.max, p.termDays, p.termRate, p.apr, p.example.payout]),
      [
        ['Basic', '100.00', '250.00', 30, '0.0040', '4.87', '100.40'],
        ['Standard', '300.00', '500.00', 60, '0.0100', '6.08', '303.00'],
        ['Premium', '600.00', '1000.00', 90, '0.0170', '6.89', '610.20'],
        ['Elite', '1500.00', '5000.00', 180, '0.0390', '7.91', '1558.50'],
      ],
    );
  });

  for (const [screen, options] of [
    ['a desktop', DESKTOP],
    ['a phone', PHONE],
  ]) {
    it(`shows the four demo plans with their annual rates on ${screen}, with the risk notice, and passes axe`, async () => {
      await withBrowser(
        suite.browser,
        async ({ page }) => {
          await page.goto(url('/investment-plans'));
          await heading(page, 'Portfolio Plans').waitFor();
          const cards = page.getByTestId('plan-card');
          await cards.first().waitFor();
          assert.equal(await cards.count(), DEMO_PLANS.length);
          for (const [i, plan] of DEMO_PLANS.entries()) {
            const card = cards.nth(i);
            assert.equal(await card.getByRole('heading', { level: 2 }).innerText(), plan.name);
            const text = await card.innerText();
            for (const part of [plan.range, plan.term, plan.rate]) assert.ok(text.includes(part), `${plan.name}: "${part}" in ${JSON.stringify(text)}`);
            assert.equal(await card.getByTestId('plan-apr').innerText(), plan.apr);
            assert.ok((await card.getByTestId('plan-example').textContent()).startsWith(plan.payout), `${plan.name}: the worked example`);
            await card.getByRole('link', { name: `Start investing in ${plan.name}` }).waitFor();
          }
          await page.getByRole('heading', { level: 2, name: 'Know the risks before you invest' }).waitFor();
          await page.getByText('Crypto savings can lose value.', { exact: false }).waitFor();
          // Nothing wider than the screen.
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
          await expectAccessible(page, `/investment-plans on ${screen}`);
        },
        options,
      );
    });
  }

  // The page arrives complete (api/livepages.go): the plans are in the HTML, not fetched by a script.
  it('shows every plan with its terms and the risk notice with JavaScript turned off', async () => {
    const context = await suite.browser.newContext({ ...CONTEXT_DEFAULTS, ...PHONE, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      const response = await page.goto(url('/investment-plans'));
      assert.equal(response.status(), 200);
      await heading(page, 'Portfolio Plans').waitFor();
      const cards = page.getByTestId('plan-card');
      assert.equal(await cards.count(), DEMO_PLANS.length);
      for (const [i, plan] of DEMO_PLANS.entries()) {
        const card = cards.nth(i);
        assert.equal(await card.getByRole('heading', { level: 2 }).innerText(), plan.name);
        const text = await card.innerText();
        for (const part of [plan.range, plan.term, plan.rate]) assert.ok(text.includes(part), `${plan.name}: "${part}" in ${JSON.stringify(text)}`);
        assert.equal(await card.getByTestId('plan-apr').innerText(), plan.apr);
        assert.ok((await card.getByTestId('plan-example').textContent()).startsWith(plan.payout), `${plan.name}: the worked example`);
      }
      await page.getByRole('heading', { level: 2, name: 'Know the risks before you invest' }).waitFor();
      assert.ok(!(await page.content()).includes('Loading'), 'nothing on the page is still loading');
      await screenshot(page, 'investment-plans-no-javascript-phone.png', { fullPage: true });
    } finally {
      await context.close();
    }
  });

  it('takes the served plan list over without fetching it again or moving anything', async () => {
    await withBrowser(
      suite.browser,
      async ({ page }) => {
        const fetched = [];
        page.on('request', (request) => {
          if (new URL(request.url()).pathname === '/api/invest/plans') fetched.push(request.url());
        });
        // The list's box as the server's HTML lays it out, before any script has run.
        await page.addInitScript(() => {
          document.addEventListener('readystatechange', () => {
            if (document.readyState !== 'interactive') return;
            const list = document.querySelector('main ul.card-grid');
            globalThis.servedList = list;
            globalThis.servedBox = list && JSON.stringify(list.getBoundingClientRect());
          });
          // Shifts of the page's content (the navigation's own are another matter).
          globalThis.shifts = 0;
          new PerformanceObserver((entries) => {
            for (const entry of entries.getEntries()) {
              if (entry.sources.some((source) => source.node?.closest?.('main'))) globalThis.shifts += entry.value;
            }
          }).observe({ type: 'layout-shift', buffered: true });
        });
        await page.goto(url('/investment-plans'));
        await page.waitForLoadState('networkidle');
        const result = await page.evaluate(() => ({
          kept: globalThis.servedList?.isConnected === true,
          same: JSON.stringify(globalThis.servedList?.getBoundingClientRect()) === globalThis.servedBox,
          shifts: globalThis.shifts,
        }));
        assert.ok(result.kept, 'hydration kept the served list');
        assert.ok(result.same, 'the list has the size and place it was served with');
        assert.equal(result.shifts, 0, 'no layout shift in the page’s content');
        assert.deepEqual(fetched, [], 'the plans were not fetched again');
        assert.equal(await page.getByTestId('plan-card').count(), DEMO_PLANS.length);
      },
      DESKTOP,
    );
  });

  it('starts an investment from the keyboard: a visitor is asked to sign in first', async () => {
    await withBrowser(
      suite.browser,
      async ({ page }) => {
        await page.goto(url('/investment-plans'));
        const cta = page.getByRole('link', { name: 'Start investing in Basic' });
        await cta.waitFor();
        let focused = false;
        for (let i = 0; i < 60 && !focused; i++) {
          await page.keyboard.press('Tab');
          focused = await cta.evaluate((el) => el === document.activeElement);
        }
        assert.ok(focused, 'the button is reached with Tab');
        await page.keyboard.press('Enter');
        // /start-invest is for signed-in users: the visitor lands on the sign-in page.
        await heading(page, 'Sign In').waitFor();
        assert.equal(new URL(page.url()).pathname, '/login');
      },
      DESKTOP,
    );
  });
});
