// Browser smoke test against a running server: `node --test e2e/` from the repository root, after
// `npm ci` in ui/ (playwright-core and axe-core are resolved from ui/node_modules so the repository
// has one JavaScript dependency tree). It drives the system Chromium; no browser is downloaded.
//
//   E2E_BASE_URL   server to test (default http://localhost:8080)
//   CHROMIUM_PATH  browser binary (default /usr/bin/chromium)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { axeSource, BASE_URL, CHROMIUM_ARGS, CHROMIUM_PATH, chromium, CONTEXT_DEFAULTS, STEP_TIMEOUT_MS, url, waitForAppOnLoad } from './browser.mjs';
import { expectAccessible } from './flows.mjs';

const HOME_HEADING = /crypto savings plans/i;
const NAV_LINKS = ['Portfolio Plans', 'About Us', 'Help Center', 'How It Works', 'Current Rates', 'Sign In'];

describe(`smoke test against ${BASE_URL}`, () => {
  let browser;

  before(async () => {
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

  async function openPage(contextOptions = {}) {
    const context = await browser.newContext({ ...CONTEXT_DEFAULTS, ...contextOptions });
    const page = waitForAppOnLoad(await context.newPage());
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    const problems = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      // A CSP violation only shows up in the console; the page may still look fine.
      if (message.type() === 'error' && /content security policy/i.test(message.text())) {
        problems.push(`CSP: ${message.text()}`);
      }
    });
    return { context, page, problems };
  }

  it('renders the home page with its heading and the main navigation', async () => {
    const { context, page, problems } = await openPage();
    try {
      await page.goto(url('/'));
      await page.getByRole('heading', { level: 1, name: HOME_HEADING }).waitFor();
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Clearvest' }).waitFor();
      for (const name of NAV_LINKS) {
        assert.equal(await nav.getByRole('link', { name, exact: true }).count(), 1, `navbar link "${name}"`);
      }
      assert.deepEqual(problems, [], 'the page runs under the server CSP without errors');
    } finally {
      await context.close();
    }
  });

  it('leads from the 404 page back home', async () => {
    const { context, page, problems } = await openPage();
    try {
      await page.goto(url('/definitely-missing'));
      await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();

      await page.getByRole('link', { name: 'Back to home' }).click();

      await page.waitForURL(url('/'));
      await page.getByRole('heading', { level: 1, name: HOME_HEADING }).waitFor();
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  it('answers an unknown API path with 404 and a JSON message', async () => {
    const response = await fetch(url('/api/nope'), { signal: AbortSignal.timeout(STEP_TIMEOUT_MS) });
    assert.equal(response.status, 404);
    assert.match(response.headers.get('content-type') ?? '', /application\/json/);
    const body = await response.json();
    assert.equal(typeof body.message, 'string');
    assert.ok(body.message.length > 0, 'message is not empty');
  });

  it('opens and closes the mobile menu on a phone-sized screen', async () => {
    const { context, page } = await openPage({ viewport: { width: 375, height: 740 } });
    try {
      await page.goto(url('/'));
      const toggle = page.getByRole('button', { name: 'Menu' });
      const plansLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Portfolio Plans' });
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      assert.equal(await plansLink.isVisible(), false, 'menu starts closed');

      await toggle.click();

      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      await plansLink.waitFor({ state: 'visible' });

      await page.keyboard.press('Escape');

      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      await plansLink.waitFor({ state: 'hidden' });
    } finally {
      await context.close();
    }
  });

  for (const [name, path, heading] of [
    ['the home page', '/', HOME_HEADING],
    ['the 404 page', '/definitely-missing', 'Page not found'],
  ]) {
    it(`has no accessibility violations on ${name}`, async () => {
      const { context, page } = await openPage();
      try {
        await page.goto(url(path));
        await page.getByRole('heading', { level: 1, name: heading }).waitFor();
        await expectAccessible(page, path);
      } finally {
        await context.close();
      }
    });
  }

  // After a deploy an open tab asks for chunk names that are gone; a dropped connection looks the
  // same. The page reloads once by itself, then shows the error page, which can try again.
  it("reloads once when a page's code cannot be fetched, then shows the error page until it can", async () => {
    const { context, page, problems } = await openPage({ bypassCSP: true });
    try {
      let loads = 0;
      let secondLoad;
      const reloaded = new Promise((resolve) => {
        secondLoad = resolve;
      });
      page.on('load', () => {
        loads += 1;
        if (loads === 2) secondLoad();
      });
      const chunk = /\/assets\/LoginPage-[^/]+\.js$/;
      const drop = (route) => route.abort();
      await page.route(chunk, drop);
      await page.goto(url('/'));
      await page.getByRole('heading', { level: 1, name: HOME_HEADING }).waitFor();

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sign In' }).click();

      await page.getByRole('heading', { level: 1, name: 'Something went wrong' }).waitFor();
      await page.getByText('This page could not be loaded', { exact: false }).waitFor();
      assert.equal(new URL(page.url()).pathname, '/login', 'the error page stands where the link pointed');
      // The reloaded page's load event may come after its error page shows (it waits for every
      // resource); a page that never reloads fails the count after ten seconds.
      await Promise.race([reloaded, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      assert.equal(loads, 2, 'the page reloaded once by itself, then stopped');
      await expectAccessible(page, 'the error page');

      await page.unroute(chunk, drop);
      await page.getByRole('button', { name: 'Try again' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign In' }).waitFor();
      assert.equal(loads, 3);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });

  // A toast is read the moment it appears, so its text must meet contrast on every frame of its
  // entrance, not only once the animation has ended.
  it('keeps a toast readable through its entrance animation, and still under reduced motion', async () => {
    const showToast = async (page) => {
      // A client-side navigation keeps whatever the test set up in the page.
      await page.evaluate(() => {
        window.history.pushState(null, '', '/support');
        window.dispatchEvent(new PopStateEvent('popstate'));
      });
      // Toasts only confirm a success: a visitor's message to support is one.
      await page.getByLabel('Your name', { exact: true }).fill('Toast Reader');
      await page.getByLabel('Email', { exact: true }).fill(`toast-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`);
      await page.getByLabel('Message', { exact: true }).fill('Checking that a confirmation stays readable.');
      await page.getByRole('button', { name: 'Send message' }).click();
      await page.getByRole('region', { name: 'Notifications' }).getByText('Message sent successfully!').waitFor();
    };
    const contrastAt = (page, fraction) =>
      page.evaluate(async (at) => {
        const toaster = document.querySelector('.toaster');
        for (const animation of toaster.getAnimations({ subtree: true })) {
          animation.pause();
          animation.currentTime = at * animation.effect.getComputedTiming().duration;
        }
        const results = await globalThis.axe.run(toaster, { runOnly: ['color-contrast'], resultTypes: ['violations'] });
        return results.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`));
      }, fraction);

    const moving = await openPage({ bypassCSP: true, reducedMotion: 'no-preference' });
    try {
      await moving.page.goto(url('/'));
      await moving.page.addScriptTag({ content: axeSource });
      // Stop the page's animation clock, so the test (not the machine's load) chooses the frames.
      const devtools = await moving.context.newCDPSession(moving.page);
      await devtools.send('Animation.enable');
      await devtools.send('Animation.setPlaybackRate', { playbackRate: 0 });
      await showToast(moving.page);
      const animated = await moving.page.evaluate(() => document.querySelector('.toaster').getAnimations({ subtree: true }).length);
      assert.ok(animated > 0, 'the toast slides in (this test checks the frames of that animation)');
      for (const fraction of [0, 0.1, 0.25, 0.5, 0.75]) {
        assert.deepEqual(await contrastAt(moving.page, fraction), [], `contrast at ${fraction * 100}% of the entrance`);
      }
    } finally {
      await moving.context.close();
    }

    const still = await openPage();
    try {
      await still.page.goto(url('/'));
      await showToast(still.page);
      const animated = await still.page.evaluate(() => document.querySelector('.toaster').getAnimations({ subtree: true }).length);
      assert.equal(animated, 0, 'with reduced motion the toast appears without moving');
    } finally {
      await still.context.close();
    }
  });

  it('serves the home page with a Content-Security-Policy header', async () => {
    const response = await fetch(url('/'), { signal: AbortSignal.timeout(STEP_TIMEOUT_MS) });
    assert.equal(response.status, 200);
    assert.ok(response.headers.get('content-security-policy'), 'content-security-policy header is set');
  });
});
