// The public site in a real browser against a running server: every prerendered page of the route
// manifest (GET /routes.json, written by the UI build from ui/src/app/routes.ts) at phone and
// desktop size, as a signed-out visitor. Each arrives as HTML with its own title, canonical link
// and heading before any script runs, hydrates without a console error or warning (a hydration
// mismatch would be one) and keeps the server's markup, and passes axe. Unknown paths answer 404
// with the app's "Page not found"; the pages of the app answer 200. Same environment as
// smoke.test.mjs (E2E_BASE_URL, CHROMIUM_PATH); E2E_SCREENSHOT_DIR, when set, receives a full-page
// screenshot of every page checked.
// See docs/public-site.md.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { BASE_URL, CHROMIUM_ARGS, CHROMIUM_PATH, chromium, CONTEXT_DEFAULTS, STEP_TIMEOUT_MS, url, waitForAppOnLoad } from './browser.mjs';
import { expectAccessible, screenshot } from './flows.mjs';

const VIEWPORTS = {
  phone: { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true },
  desktop: { viewport: { width: 1280, height: 800 } },
};

const get = (path) => fetch(url(path), { signal: AbortSignal.timeout(STEP_TIMEOUT_MS), redirect: 'manual' });
const slug = (path) => (path === '/' ? 'home' : path.slice(1).replace(/[^A-Za-z0-9-]+/g, '_'));

describe(`public site against ${BASE_URL}`, () => {
  let browser;
  let routes;

  before(async () => {
    let response;
    try {
      response = await get('/routes.json');
    } catch (error) {
      throw new Error(`No server answers at ${BASE_URL} (${error.cause?.code ?? error.message}). Start it, or set E2E_BASE_URL.`);
    }
    assert.equal(response.status, 200, 'the UI build serves its route manifest');
    ({ routes } = await response.json());
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });
  });

  after(async () => {
    await browser?.close();
  });

  const prerendered = () => routes.filter((route) => route.prerendered);

  it('prerenders the marketing pages of the route table', () => {
    assert.deepEqual(
      prerendered().map((route) => route.path),
      ['/', '/investment-plans', '/our-story', '/support', '/how-it-works', '/market-rates', '/Hierarchy', '/privacy-policy', '/license'],
    );
  });

  it('sends each marketing page as HTML with its head and content, on the server’s own address', async () => {
    for (const { path } of prerendered()) {
      const response = await get(path);
      assert.equal(response.status, 200, path);
      const html = await response.text();
      assert.match(html, /<title>[^<]*Clearvest<\/title>/, `${path}: title`);
      assert.match(html, /<meta name="description" content="[^"]{20,}"/, `${path}: description`);
      assert.ok(html.includes(`<link rel="canonical" href="${BASE_URL}${path}" />`), `${path}: canonical link`);
      assert.ok(html.includes(`<meta property="og:url" content="${BASE_URL}${path}" />`), `${path}: og:url`);
      assert.match(html, /<main[^>]*>[\s\S]*<h1[\s>]/, `${path}: the page's heading is in the HTML`);
      assert.ok(!html.includes('clearvest.invalid'), `${path}: no placeholder origin left`);
    }
  });

  it('asks for the app’s scripts only after a marketing page has been painted', async () => {
    const html = await (await get('/')).text();
    assert.ok(!/<script[^>]*\ssrc=/.test(html) && !html.includes('<link rel="modulepreload"'), 'no script is requested by the HTML itself');
    const { context, page } = await visit('/');
    try {
      const { paint, scripts } = await page.evaluate(() => ({
        paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
        scripts: performance
          .getEntriesByType('resource')
          .filter((entry) => /\/assets\/[^/]+\.js$/.test(new URL(entry.name).pathname))
          .map((entry) => entry.startTime),
      }));
      assert.ok(paint > 0, 'the page was painted');
      assert.ok(scripts.length > 0, 'the app’s scripts were loaded');
      assert.ok(Math.min(...scripts) >= paint, `first script requested at ${Math.min(...scripts)} ms, first paint at ${paint} ms`);
    } finally {
      await context.close();
    }
  });

  it('answers the app’s pages with 200 and anything else with 404 and the app', async () => {
    const samples = routes.map((route) => route.path.replace(/:[^/]+/g, 'sample-42'));
    for (const path of [...samples, '/hierarchy']) {
      const response = await get(path);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/, path);
    }
    for (const path of ['/definitely-missing', '/my-account/extra', '/withdrawal', '/index.html', '/prerendered/index.html']) {
      const response = await get(path);
      assert.equal(response.status, 404, path);
      assert.ok((await response.text()).includes('<div id="root">'), `${path}: the app's page`);
    }
  });

  it('serves a sitemap of the marketing pages and a robots.txt that points to it', async () => {
    const sitemap = await get('/sitemap.xml');
    assert.equal(sitemap.status, 200);
    const locs = [...(await sitemap.text()).matchAll(/<loc>([^<]*)<\/loc>/g)].map((match) => match[1]);
    assert.deepEqual(
      locs,
      prerendered().map((route) => `${BASE_URL}${route.path}`),
    );
    const robots = await get('/robots.txt');
    assert.equal(robots.status, 200);
    assert.ok((await robots.text()).includes(`Sitemap: ${BASE_URL}/sitemap.xml`));
  });

  // A visit by a signed-out visitor: every console error or warning and every uncaught error.
  async function visit(path, contextOptions) {
    const context = await browser.newContext({ ...CONTEXT_DEFAULTS, ...contextOptions });
    // The page's first heading and its sections as the server sent them, taken before any module
    // script runs; where hydration failed, the app would have replaced them. The sections include
    // those hydrated later, in tasks of their own (ui/src/app/hydration.tsx).
    await context.addInitScript(() => {
      document.addEventListener('readystatechange', () => {
        if (document.readyState !== 'interactive') return;
        globalThis.serverHeading = document.querySelector('main h1');
        globalThis.serverSections = [...document.querySelectorAll('main > *, main section, body footer')];
      });
    });
    const page = waitForAppOnLoad(await context.newPage());
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    const problems = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    const response = await page.goto(url(path));
    return { context, page, problems, response };
  }

  for (const [size, contextOptions] of Object.entries(VIEWPORTS)) {
    it(`shows every marketing page on a ${size}, hydrated, without console errors, and accessible`, async () => {
      for (const { path } of prerendered()) {
        const { context, page, problems, response } = await visit(path, contextOptions);
        try {
          assert.equal(response.status(), 200, path);
          // The app marks the page once it has hydrated it (ui/src/main.tsx); the requests it then
          // makes (the session check, the footer's version) must be answered before the console
          // is judged.
          await page.locator('html[data-app="ready"]').waitFor({ state: 'attached' });
          await page.waitForLoadState('networkidle');
          assert.ok(await page.evaluate(() => globalThis.serverHeading?.isConnected === true), `${path}: hydration kept the server's heading`);
          const replaced = await page.evaluate(() => globalThis.serverSections.filter((s) => !s.isConnected).map((s) => s.outerHTML.slice(0, 80)));
          assert.deepEqual(replaced, [], `${path}: hydration kept the server's sections`);
          const title = await page.title();
          assert.match(title, /Clearvest$/, `${path}: document title`);
          assert.equal(title, await page.evaluate(() => document.querySelector('title')?.textContent), path);
          await expectAccessible(page, `${path} (${size})`);
          await screenshot(page, `${slug(path)}-${size}.png`, { fullPage: true });
          assert.deepEqual(problems, [], `${path} (${size}): console errors or warnings`);
        } finally {
          await context.close();
        }
      }
    });
  }

  // Member Levels and How It Works arrive complete (api/livepages.go): the levels and the steps
  // are in the HTML, as the API gives them, not fetched by a script.
  const LIVE_PAGES = [
    {
      path: '/Hierarchy',
      api: '/api/badges',
      list: 'ol.levels',
      expected: (answer) =>
        answer.levels.map((level) => [
          level.name[0].toUpperCase() + level.name.slice(1),
          ...(level.minReferrals === 0
            ? ['Every Clearvest account']
            : [
                `$${Number(level.minInvested).toLocaleString('en-US', { maximumFractionDigits: 2 })} invested in total`,
                `${level.minReferrals.toLocaleString('en-US')} qualified referral${level.minReferrals === 1 ? '' : 's'}`,
              ]),
        ]),
      items: 'badge-level',
    },
    {
      path: '/how-it-works',
      api: '/api/content/how-it-works',
      list: 'ol.how-steps',
      expected: (answer) => answer.steps.map((step) => [step.title, ...(step.link ? [`Go to ${step.title.toLowerCase()}`] : [])]),
      items: 'how-step',
    },
  ];

  for (const live of LIVE_PAGES) {
    it(`serves ${live.path} complete with JavaScript turned off: every item the API lists`, async () => {
      const answer = await (await get(live.api)).json();
      const expected = live.expected(answer);
      assert.ok(expected.length > 0, `${live.api} lists something`);
      const context = await browser.newContext({ ...CONTEXT_DEFAULTS, ...VIEWPORTS.phone, javaScriptEnabled: false });
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(STEP_TIMEOUT_MS);
        const response = await page.goto(url(live.path));
        assert.equal(response.status(), 200);
        const items = page.getByTestId(live.items);
        assert.equal(await items.count(), expected.length, 'one item per entry of the API answer');
        for (const [i, parts] of expected.entries()) {
          const text = await items.nth(i).innerText();
          for (const part of parts) assert.ok(text.includes(part), `item ${i}: "${part}" in ${JSON.stringify(text)}`);
        }
        assert.ok(!(await page.locator('main').innerText()).includes('Loading'), 'nothing on the page is still loading');
        await screenshot(page, `${slug(live.path)}-no-javascript-phone.png`, { fullPage: true });
      } finally {
        await context.close();
      }
    });

    it(`takes the served ${live.path} content over without fetching it again or moving anything`, async () => {
      const context = await browser.newContext({ ...CONTEXT_DEFAULTS, ...VIEWPORTS.desktop });
      try {
        const page = await context.newPage();
        page.setDefaultTimeout(STEP_TIMEOUT_MS);
        waitForAppOnLoad(page);
        const fetched = [];
        page.on('request', (request) => {
          if (new URL(request.url()).pathname === live.api) fetched.push(request.url());
        });
        // The list's box as the server's HTML lays it out, before any script has run.
        await page.addInitScript((selector) => {
          document.addEventListener('readystatechange', () => {
            if (document.readyState !== 'interactive') return;
            const list = document.querySelector(`main ${selector}`);
            globalThis.servedList = list;
            globalThis.servedBox = list && JSON.stringify(list.getBoundingClientRect());
          });
          globalThis.shifts = 0;
          new PerformanceObserver((entries) => {
            for (const entry of entries.getEntries()) {
              if (entry.sources.some((source) => source.node?.closest?.('main'))) globalThis.shifts += entry.value;
            }
          }).observe({ type: 'layout-shift', buffered: true });
        }, live.list);
        await page.goto(url(live.path));
        await page.waitForLoadState('networkidle');
        const result = await page.evaluate(() => ({
          served: globalThis.servedList !== null && globalThis.servedList !== undefined,
          kept: globalThis.servedList?.isConnected === true,
          same: JSON.stringify(globalThis.servedList?.getBoundingClientRect()) === globalThis.servedBox,
          shifts: globalThis.shifts,
        }));
        assert.ok(result.served, 'the served HTML has the list');
        assert.ok(result.kept, 'hydration kept the served list');
        assert.ok(result.same, 'the list has the size and place it was served with');
        assert.equal(result.shifts, 0, 'no layout shift in the page’s content');
        assert.deepEqual(fetched, [], `${live.api} was not fetched again`);
      } finally {
        await context.close();
      }
    });
  }

  it('shows "Page not found" for an unknown page, with a 404', async () => {
    const { context, page, problems, response } = await visit('/definitely-missing', VIEWPORTS.desktop);
    try {
      assert.equal(response.status(), 404);
      await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
      await expectAccessible(page, 'the 404 page');
      await screenshot(page, 'not-found-desktop.png');
      // The browser reports the document's own 404 in the console; nothing else may appear.
      const others = problems.filter((problem) => !/status of 404/.test(problem));
      assert.deepEqual(others, []);
    } finally {
      await context.close();
    }
  });
});
