// The signed-in app shell in a real browser: on a desktop a sidebar with the investor's
// destinations (the current one marked), the money actions one tap away in the top bar and an
// account menu holding Log out; on a phone a bottom bar, an account sheet and nothing hidden
// under either bar; for staff every queue with the server's pending count and none of the
// investor's prompts; a visitor still gets the marketing navbar. axe audits each.
// E2E_SCREENSHOT_DIR, when set, receives the staff dashboard on a desktop and a phone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { url } from './browser.mjs';
import {
  adminCredentials,
  api,
  expectAccessible,
  freshBrowser,
  heading,
  login,
  logout,
  openAccountMenu,
  requestDeposit,
  screenshot,
  signUpVerified,
  uniqueEmail,
  withBrowser,
  withSuiteBrowser,
} from './flows.mjs';

const PHONE = { width: 375, height: 812 };
const DESKTOP = { width: 1280, height: 860 };

const INVESTOR_DESTINATIONS = [
  ['Dashboard', '/my-account'],
  ['Portfolio', '/invest-status'],
  ['History', '/transaction-History'],
  ['Deposit', '/deposit-payment'],
  ['Withdraw', '/withdraw-wallet'],
  ['Referrals', '/referrals'],
  ['Profile', '/user-profile'],
];
const QUEUES = [
  ['Deposits', 'deposits'],
  ['Withdrawals', 'withdrawals'],
  ['Investments', 'investments'],
  ['Identity checks', 'identityChecks'],
  ['Second approvals', 'approvals'],
];

const sidebar = (page) => page.locator('.app-sidebar');
const linksOf = (locator) =>
  locator.locator('a').evaluateAll((links) => links.map((a) => [a.querySelector('.app-nav__label')?.textContent ?? a.textContent, a.getAttribute('href')]));

// The signed-in frame is there once its sidebar (desktop) or bottom bar (phone) shows.
async function shellShown(page) {
  await page.locator('.app-sidebar, .app-bottom-bar').filter({ visible: true }).first().waitFor();
}

describe('app shell', () => {
  const suite = withSuiteBrowser();

  it('gives an investor on a desktop the sidebar, the money actions and an account menu with Log out', async () => {
    await withBrowser(
      suite.browser,
      async ({ page }) => {
        await signUpVerified(page, { email: uniqueEmail('shell-desk'), name: 'Sidney Sidebar' });
        await page.goto(url('/my-account'));
        await heading(page, 'Welcome, Sidney').waitFor();
        await shellShown(page);
        assert.equal(await page.locator('.site-header').count(), 0, 'no marketing navbar on a signed-in page');
        assert.equal(await page.locator('.site-footer').count(), 0, 'no marketing footer on a signed-in page');
        assert.equal(await page.locator('.app-bottom-bar').isVisible(), false, 'no bottom bar on a desktop');

        const nav = sidebar(page);
        assert.deepEqual(await linksOf(nav), INVESTOR_DESTINATIONS);
        assert.equal(await nav.getByRole('group', { name: 'Staff' }).count(), 0, 'an investor has no staff group');
        const current = async () => nav.locator('[aria-current="page"]').allTextContents();
        assert.deepEqual(await current(), ['Dashboard']);
        await expectAccessible(page, 'the dashboard in the app shell (desktop)');

        await nav.getByRole('link', { name: 'History' }).click();
        await heading(page, 'Transaction History').waitFor();
        assert.deepEqual(await current(), ['History']);

        // Deposit, Invest and Withdraw: one tap from any page.
        const actions = page.getByRole('list', { name: 'Money' });
        for (const [name, title] of [
          ['Deposit', 'Fund Wallet'],
          ['Invest', 'New Investment'],
          ['Withdraw', 'Withdraw'],
        ]) {
          await actions.getByRole('link', { name, exact: true }).click();
          await heading(page, title).waitFor();
        }

        // The account menu: keyboard-operable, Escape closes it and gives focus back.
        const toggle = page.getByRole('button', { name: /^Account menu:\s*Sidney Sidebar$/ });
        await toggle.focus();
        await page.keyboard.press('Enter');
        const menu = page.locator('#account-menu');
        await menu.waitFor();
        assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
        await menu.getByRole('button', { name: 'Log out' }).waitFor();
        await menu.getByLabel('Language').waitFor();
        assert.equal(await menu.getByRole('link', { name: 'Profile' }).getAttribute('href'), '/user-profile');
        await expectAccessible(page, 'the open account menu');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Escape');
        await menu.waitFor({ state: 'hidden' });
        assert.equal(await toggle.evaluate((el) => el === document.activeElement), true, 'focus is back on the account menu button');

        // No Logout tab on the profile page any more.
        await page.goto(url('/user-profile'));
        await heading(page, 'Profile').waitFor();
        // The tabs come with the profile's figures, which may arrive after the heading.
        await page.getByRole('tab', { name: 'Security' }).waitFor();
        assert.deepEqual(await page.getByRole('tab').allTextContents(), ['Profile', 'Security']);

        // The skip link still leads past the shell to the page.
        await page.keyboard.press('Tab');
        const skip = page.getByRole('link', { name: 'Skip to content' });
        assert.equal(await skip.evaluate((el) => el === document.activeElement), true, 'the skip link comes first');
        await page.keyboard.press('Enter');
        assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');

        await logout(page);
        assert.equal(await page.locator('.app-shell').count(), 0);
      },
      { viewport: DESKTOP },
    );
  });

  it('gives an investor on a phone a bottom bar and an account sheet, with nothing hidden under the bars', async () => {
    await withBrowser(
      suite.browser,
      async ({ page }) => {
        await signUpVerified(page, { email: uniqueEmail('shell-phone'), name: 'Pia Phone' });
        await page.goto(url('/my-account'));
        await heading(page, 'Welcome, Pia').waitFor();
        await shellShown(page);
        assert.equal(await sidebar(page).isVisible(), false, 'no sidebar on a phone');
        const bar = page.locator('.app-bottom-bar');
        assert.deepEqual(await bar.locator('a').allTextContents(), ['Home', 'Portfolio', 'History']);
        await bar.getByRole('button', { name: 'More' }).waitFor();
        assert.equal(await bar.locator('[aria-current="page"]').textContent(), 'Home');

        // The money actions stay one tap away in the top bar.
        const actions = page.getByRole('list', { name: 'Money' });
        for (const name of ['Deposit', 'Invest', 'Withdraw']) assert.ok(await actions.getByRole('link', { name, exact: true }).isVisible(), `${name} is visible`);

        // The bar's height is published for whatever is fixed to the bottom of the screen.
        const barHeight = await page.evaluate(() => {
          const probe = document.createElement('div');
          probe.style.height = 'var(--bottom-bar-height)';
          document.body.append(probe);
          const height = probe.getBoundingClientRect().height;
          probe.remove();
          return height;
        });
        const box = await bar.boundingBox();
        assert.ok(barHeight > 0, '--bottom-bar-height is set while the bottom bar shows');
        assert.ok(Math.abs(box.height - barHeight) <= 1, `the variable (${barHeight}px) is the bar's height (${box.height}px)`);

        // Scrolled to the end, the page's last content ends above the bar; nothing is wider than the screen.
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        const lastBottom = await page.locator('main .dashboard > :last-child').evaluate((el) => el.getBoundingClientRect().bottom);
        assert.ok(lastBottom <= box.y + 0.5, `the last section (ends at ${lastBottom}) is not under the bottom bar (starts at ${box.y})`);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `the dashboard is ${overflow}px wider than the phone`);
        await expectAccessible(page, 'the dashboard in the app shell (phone)');

        await bar.getByRole('link', { name: 'Portfolio' }).click();
        await heading(page, 'My Portfolio').waitFor();
        assert.equal(await bar.locator('[aria-current="page"]').textContent(), 'Portfolio');

        const sheet = await openAccountMenu(page);
        assert.deepEqual(await linksOf(sheet), [
          ['Deposit', '/deposit-payment'],
          ['Withdraw', '/withdraw-wallet'],
          ['Referrals', '/referrals'],
          ['Profile', '/user-profile'],
        ]);
        await sheet.getByRole('button', { name: 'Log out' }).waitFor();
        await expectAccessible(page, 'the account sheet (phone)');
        await page.keyboard.press('Escape');
        await sheet.waitFor({ state: 'hidden' });

        await openAccountMenu(page);
        await sheet.getByRole('link', { name: 'Referrals' }).click();
        await heading(page, 'Referrals').waitFor();
        await sheet.waitFor({ state: 'hidden' });

        await logout(page);
      },
      { viewport: PHONE },
    );
  });

  it('shows staff every queue with the pending count the server reports, and no investor prompts', async () => {
    const investor = await freshBrowser(suite.browser);
    try {
      await signUpVerified(investor.page, { email: uniqueEmail('shell-queue'), name: 'Quinn Queue' });
      await requestDeposit(investor.page, '40.00');
      await withBrowser(
        suite.browser,
        async ({ page }) => {
          const { email, password } = adminCredentials();
          await login(page, email, password);
          await shellShown(page);
          const group = sidebar(page).getByRole('group', { name: 'Staff' });
          await group.waitFor();
          assert.deepEqual(
            (await linksOf(group)).map(([, href]) => href),
            ['/admin-pending-deposit', '/admin-pending-wallet', '/admin-pending-investment', '/pending-kyc', '/approvals', '/user-profile?tab=users', '/support-tickets', '/pending-testimonials', '/compose-email', '/audit', '/settings'],
          );

          // The counts equal the server's. Other tests may add to the queues meanwhile, so the
          // page is read again until both agree on one moment.
          const shownCounts = () =>
            group.locator('a[data-count]').evaluateAll((links) => Object.fromEntries(links.map((a) => [a.dataset.destination, Number(a.dataset.count)])));
          let agreed = false;
          for (let attempt = 0; attempt < 5 && !agreed; attempt++) {
            const before = (await api(page, 'GET', '/api/staff/queue-counts')).body;
            await page.reload();
            await page.waitForFunction(() => document.querySelector('.app-sidebar a[data-destination="deposits"][data-count]') !== null);
            const shown = await shownCounts();
            const after = (await api(page, 'GET', '/api/staff/queue-counts')).body;
            const expected = Object.fromEntries(QUEUES.map(([, key]) => [key, before[key] ?? 0]));
            const same = QUEUES.every(([, key]) => (before[key] ?? 0) === (after[key] ?? 0));
            if (same) {
              assert.deepEqual(Object.fromEntries(QUEUES.map(([, key]) => [key, shown[key]])), expected);
              agreed = true;
            }
          }
          assert.ok(agreed, 'the queue counts settled');
          const deposits = group.getByRole('link', { name: /^Deposits/ });
          assert.ok(Number(await deposits.getAttribute('data-count')) >= 1, 'the pending deposit is counted');
          assert.match(await deposits.textContent(), /\(\d+ waiting\)/);

          // The staff's own dashboard: their money, none of the investor's prompts.
          await page.goto(url('/my-account'));
          await heading(page, /^Welcome, /).waitFor();
          await page.getByRole('region', { name: 'Your money' }).waitFor();
          await page.getByRole('region', { name: 'Waiting for a decision' }).waitFor();
          assert.equal(await page.getByTestId('kyc-notice').count(), 0, 'no identity-check banner for staff');
          assert.equal(await page.getByTestId('invest-gate').count(), 0, 'no locked Invest for staff');
          assert.equal(await page.getByRole('link', { name: 'Write a testimonial' }).count(), 0);
          assert.equal(await page.getByText(/start investing|upload your documents/i).count(), 0);

          // What waits for them, at the top of the dashboard: every queue with its count and a
          // link to it, the pending deposit among them.
          const waiting = page.getByRole('region', { name: 'Waiting for you' });
          await waiting.getByTestId('waiting-summary').waitFor();
          assert.ok(
            await page.evaluate(() => {
              const first = document.querySelector('.dashboard > section');
              return first?.getAttribute('aria-labelledby') === 'waiting-title';
            }),
            'the queues come first on the staff dashboard',
          );
          assert.deepEqual(
            (await waiting.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('href')))).slice(0, QUEUES.length),
            ['/admin-pending-deposit', '/admin-pending-wallet', '/admin-pending-investment', '/pending-kyc', '/approvals'],
          );
          const waitingDeposits = waiting.getByRole('link', { name: /^Deposits\s*: \d+ waiting$/ });
          assert.ok(Number(await waitingDeposits.locator('.waiting__count').innerText()) >= 1, 'the pending deposit is counted');
          await expectAccessible(page, 'the staff dashboard (desktop)');
          await screenshot(page, 'staff-dashboard-desktop.png');
          await page.setViewportSize(PHONE);
          await waiting.scrollIntoViewIfNeeded();
          await expectAccessible(page, 'the staff dashboard (phone)');
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(overflow <= 0, `the dashboard is ${overflow}px wider than a phone`);
          await screenshot(page, 'staff-dashboard-phone.png', { fullPage: true });
          await page.setViewportSize(DESKTOP);
          await waitingDeposits.click();
          await heading(page, 'Pending Deposits').waitFor();
          await page.goBack();
          await heading(page, /^Welcome, /).waitFor();

          await group.getByRole('link', { name: /^Deposits/ }).click();
          await heading(page, 'Pending Deposits').waitFor();
          assert.equal(await group.getByRole('link', { name: /^Deposits/ }).getAttribute('aria-current'), 'page');
          await expectAccessible(page, 'a staff queue in the app shell');
        },
        { viewport: DESKTOP },
      );
    } finally {
      await investor.context.close();
    }
  });

  it('keeps the marketing navbar and footer for a visitor', async () => {
    await withBrowser(
      suite.browser,
      async ({ page }) => {
        await page.goto(url('/investment-plans'));
        await heading(page, 'Portfolio Plans').waitFor();
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sign In' }).waitFor();
        await page.getByRole('navigation', { name: 'Footer' }).waitFor();
        assert.equal(await page.locator('.app-shell').count(), 0);
        // Visitors never load the app shell's code.
        const scripts = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('.js')));
        assert.equal(scripts.filter((name) => /AppShell/.test(name)).length, 0, `no app shell chunk among ${scripts.join(', ')}`);
        await page.locator('.plan-card').first().waitFor();
        await expectAccessible(page, '/investment-plans (visitor)');
      },
      { viewport: DESKTOP },
    );
  });
});
