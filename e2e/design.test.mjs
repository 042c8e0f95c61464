// The design system in a real browser: public and app pages stay axe-clean at a phone and a
// desktop size, in light and dark mode; a signed-out visitor's home page logs no console error
// (nor any failed request); the start-up loader is gone once the app runs; nothing overflows a
// phone screen sideways; the mobile menu works with the keyboard; a signed-in user whose access
// cookie has expired is still signed in after a reload (the signed-in hint lets the app refresh).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { url } from './browser.mjs';
import { adminCredentials, expectAccessible, heading, login, logout, withBrowser, withSuiteBrowser } from './flows.mjs';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const PAGES = [
  ['/', /fixed-term crypto savings plans/i],
  ['/login', 'Sign In'],
  ['/investment-plans', 'Portfolio Plans'],
];

describe('design system', () => {
  const suite = withSuiteBrowser();

  for (const colorScheme of ['light', 'dark']) {
    for (const [size, viewport] of [
      ['phone', PHONE],
      ['desktop', DESKTOP],
    ]) {
      it(`keeps home, sign-in and plans axe-clean on a ${size} in ${colorScheme} mode`, async () => {
        await withBrowser(
          suite.browser,
          async ({ page }) => {
            for (const [path, title] of PAGES) {
              await page.goto(url(path));
              await heading(page, title).waitFor();
              // Plans load their data after the heading; audit the page as the visitor reads it.
              if (path === '/investment-plans') await page.locator('.plan-card').first().waitFor();
              assert.equal(
                await page.evaluate(() => window.matchMedia('(prefers-color-scheme: dark)').matches),
                colorScheme === 'dark',
              );
              await expectAccessible(page, `${path} (${size}, ${colorScheme})`);
              const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
              assert.ok(overflow <= 0, `${path} (${size}) is ${overflow}px wider than the screen`);
            }
          },
          { viewport, colorScheme },
        );
      });
    }
  }

  it('fits the smallest phone we support (360 px) without sideways scrolling', async () => {
    await withBrowser(
      suite.browser,
      async ({ page }) => {
        for (const [path, title] of PAGES) {
          await page.goto(url(path));
          await heading(page, title).waitFor();
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(overflow <= 0, `${path} is ${overflow}px wider than a 360 px screen`);
        }
      },
      { viewport: { width: 360, height: 740 } },
    );
  });

  it('shows a signed-out visitor the home page without a console error or a failed request', async () => {
    await withBrowser(suite.browser, async ({ page }) => {
      const errors = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('response', (response) => {
        if (response.status() >= 400) errors.push(`${response.status()} ${response.url()}`);
      });
      await page.goto(url('/'));
      await heading(page, /fixed-term crypto savings plans/i).waitFor();
      // The session check has answered once the navbar offers Sign In.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sign In' }).waitFor();
      await page.waitForLoadState('networkidle');
      assert.deepEqual(errors, []);
      assert.equal(await page.locator('.boot').count(), 0, 'the start-up loader is gone once the app has rendered');
    });
  });

  it('opens the mobile menu on a phone and closes it with Escape, focus back on the button', async () => {
    await withBrowser(
      suite.browser,
      async ({ page }) => {
        await page.goto(url('/'));
        const toggle = page.getByRole('button', { name: 'Menu' });
        const plans = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Portfolio Plans' });
        assert.equal(await plans.isVisible(), false, 'the menu starts closed on a phone');
        await toggle.click();
        await plans.waitFor({ state: 'visible' });
        await expectAccessible(page, 'the open mobile menu');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Escape');
        await plans.waitFor({ state: 'hidden' });
        assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
        assert.equal(await toggle.evaluate((el) => el === document.activeElement), true);
      },
      { viewport: PHONE },
    );
  });

  it('shows a visible focus ring on every control reached with the keyboard', async () => {
    await withBrowser(
      suite.browser,
      async ({ page }) => {
        await page.goto(url('/'));
        const seen = [];
        for (let i = 0; i < 12; i++) {
          await page.keyboard.press('Tab');
          const focused = await page.evaluate(() => {
            const el = document.activeElement;
            const style = getComputedStyle(el);
            const box = el.getBoundingClientRect();
            return {
              name: `${el.tagName.toLowerCase()} ${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30)}`,
              outline: style.outlineStyle,
              width: parseFloat(style.outlineWidth),
              shown: box.width > 0 && box.height > 0,
            };
          });
          seen.push(focused.name);
          assert.notEqual(focused.outline, 'none', `${focused.name}: a focus ring`);
          assert.ok(focused.width >= 2, `${focused.name}: a focus ring at least 2 px wide (${focused.width})`);
          assert.ok(focused.shown, `${focused.name}: on screen when focused`);
        }
        assert.equal(new Set(seen).size, seen.length, `Tab moves through distinct controls: ${seen.join(', ')}`);
      },
      { viewport: DESKTOP },
    );
  });

  it('keeps a signed-in user signed in across a reload after the access cookie expires, on an axe-clean dashboard', async () => {
    const { email, password } = adminCredentials();
    await withBrowser(
      suite.browser,
      async ({ context, page }) => {
        await login(page, email, password);
        await expectAccessible(page, 'the dashboard (phone, dark)');
        const hint = (await context.cookies()).find((c) => c.name === 'cv_signed_in');
        assert.equal(hint?.value, '1', 'signing in sets the signed-in hint');
        assert.equal(hint?.httpOnly, false);

        // As if 15 minutes had passed: only the refresh cookie (and its hint) is left.
        await context.clearCookies({ name: 'cv_access' });
        await page.reload();
        await heading(page, /^Welcome, /).waitFor();

        // Signing out clears the hint, so the next visit asks for no refresh.
        await logout(page);
        assert.equal((await context.cookies()).find((c) => c.name === 'cv_signed_in'), undefined);
      },
      { viewport: PHONE, colorScheme: 'dark' },
    );
  });
});
