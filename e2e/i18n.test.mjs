// Translations in a real browser against a running development server (docs/i18n.md): an English
// reader downloads no German; choosing Deutsch in the footer turns the navigation, the plans page
// and the document into German, the choice survives a reload, and a browser that asks for German
// gets it without choosing. Same environment as smoke.test.mjs (E2E_BASE_URL, CHROMIUM_PATH).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BASE_URL, url } from './browser.mjs';
import { expectAccessible, heading, withBrowser, withSuiteBrowser } from './flows.mjs';

// A text only the German texts hold: it shows which scripts carry them.
const GERMAN_ONLY = 'Seite nicht gefunden';
const NBSP = '\u00a0';

// The scripts the page has loaded so far, with their bodies.
function recordScripts(page) {
  const scripts = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script') scripts.push(response.text().catch(() => ''));
  });
  return async () => Promise.all(scripts);
}

async function expectGerman(page) {
  await heading(page, 'Anlagepläne').waitFor();
  const nav = page.getByRole('navigation', { name: 'Hauptnavigation' });
  await nav.getByRole('link', { name: 'Anlagepläne' }).waitFor();
  await nav.getByRole('link', { name: 'Anmelden' }).waitFor();
  await page.getByRole('heading', { level: 2, name: 'Kennen Sie die Risiken, bevor Sie anlegen' }).waitFor();
  const basic = page.getByTestId('plan-card').first();
  await basic.getByRole('link', { name: 'Basic – jetzt anlegen' }).waitFor();
  assert.equal(await basic.getByTestId('plan-apr').innerText(), `4,87${NBSP}% pro Jahr`);
  assert.ok((await basic.innerText()).includes(`100,00${NBSP}$ bis 250,00${NBSP}$`), 'amounts are written the German way');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
  assert.equal(await page.title(), 'Anlagepläne · Clearvest');
}

describe(`translations against ${BASE_URL}`, () => {
  const suite = withSuiteBrowser({ mail: false });

  it('switches to German from the footer, stays German after a reload, and passes axe', async () => {
    await withBrowser(
      suite.browser,
      async ({ page }) => {
        const scripts = recordScripts(page);
        await page.goto(url('/investment-plans'));
        await heading(page, 'Portfolio Plans').waitFor();
        await page.getByTestId('plan-card').first().waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
        const english = await scripts();
        assert.ok(english.length > 0, 'the page loaded its scripts');
        assert.ok(!english.some((body) => body.includes(GERMAN_ONLY)), 'an English reader downloads no German texts');

        const footer = page.getByRole('contentinfo');
        await footer.getByLabel('Language', { exact: true }).selectOption({ label: 'Deutsch' });
        await expectGerman(page);
        assert.ok((await scripts()).some((body) => body.includes(GERMAN_ONLY)), 'the German texts arrived as their own script');
        await expectAccessible(page, '/investment-plans in German');

        await page.reload();
        await expectGerman(page);
        assert.equal(await footer.getByLabel('Sprache', { exact: true }).inputValue(), 'de');
        await expectAccessible(page, '/investment-plans in German after a reload');

        await footer.getByLabel('Sprache', { exact: true }).selectOption({ label: 'English' });
        await heading(page, 'Portfolio Plans').waitFor();
        await page.reload();
        await heading(page, 'Portfolio Plans').waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
      },
      { viewport: { width: 1280, height: 900 }, locale: 'en-US' },
    );
  });

  it('shows German to a browser that asks for it, on a phone, and passes axe', async () => {
    await withBrowser(
      suite.browser,
      async ({ page }) => {
        await page.goto(url('/investment-plans'));
        await heading(page, 'Anlagepläne').waitFor();
        await page.getByTestId('plan-card').first().waitFor();
        assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the page is ${overflow}px wider than the screen`);
        await expectAccessible(page, '/investment-plans in German on a phone');
      },
      { viewport: { width: 375, height: 812 }, hasTouch: true, isMobile: true, locale: 'de-DE' },
    );
  });
});
