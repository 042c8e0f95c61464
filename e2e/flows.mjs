// What the browser tests share: the server's file mailbox (read to follow e-mailed links and
// codes), the demo admin's credentials, unique e-mail addresses, fresh browser profiles with axe,
// and the sign-up and sign-in steps. See identity.test.mjs for the environment they need.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { after, afterEach, before } from 'node:test';

import { axeSource, BASE_URL, CHROMIUM_ARGS, CHROMIUM_PATH, chromium, CONTEXT_DEFAULTS, STEP_TIMEOUT_MS, url, waitForAppOnLoad } from './browser.mjs';

export const MAIL_TIMEOUT_MS = 20_000;
export const PASSWORD = 'Harbour-Lantern-42';

export const MAIL_DIR = (() => {
  const raw = process.env.E2E_MAIL_DIR;
  if (!raw) return null;
  return raw.startsWith('file:') ? fileURLToPath(raw) : raw;
})();

export function adminCredentials() {
  if (process.env.E2E_ADMIN_EMAIL && process.env.E2E_ADMIN_PASSWORD) {
    return { email: process.env.E2E_ADMIN_EMAIL, password: process.env.E2E_ADMIN_PASSWORD };
  }
  const file = MAIL_DIR && join(dirname(MAIL_DIR), 'demo-logins.txt');
  if (file && existsSync(file)) {
    const line = readFileSync(file, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('admin\t'));
    const [, email, password] = line?.split('\t') ?? [];
    if (email && password) return { email, password };
  }
  throw new Error('Set E2E_ADMIN_EMAIL and E2E_ADMIN_PASSWORD (the demo admin) for the suspension test.');
}

let counter = 0;
export function uniqueEmail(tag) {
  counter += 1;
  return `e2e-${tag}-${Date.now().toString(36)}${counter}-${randomBytes(3).toString('hex')}@example.com`;
}

// ---- The file mailbox -------------------------------------------------------------------------

function decodeQuotedPrintable(text) {
  const bytes = [];
  const soft = text.replace(/=\r?\n/g, '');
  for (let i = 0; i < soft.length; i++) {
    const hex = soft[i] === '=' ? soft.slice(i + 1, i + 3) : '';
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(soft[i], 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function parseHeaders(block) {
  const headers = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function splitMessage(raw) {
  const at = raw.search(/\r?\n\r?\n/);
  return { headers: parseHeaders(raw.slice(0, at)), body: raw.slice(at).replace(/^\r?\n\r?\n/, '') };
}

function decodePart({ headers, body }) {
  const encoding = (headers['content-transfer-encoding'] ?? '').toLowerCase();
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  if (encoding === 'base64') return Buffer.from(body.replace(/\s/g, ''), 'base64').toString('utf8');
  return body;
}

// The plain-text part of a message: what a person would read, with the links and codes.
function plainText(raw) {
  const message = splitMessage(raw);
  const boundary = /boundary="?([^";]+)"?/i.exec(message.headers['content-type'] ?? '')?.[1];
  if (!boundary) return decodePart(message);
  const parts = message.body.split(`--${boundary}`).slice(1, -1).map((p) => splitMessage(p.replace(/^\r?\n/, '')));
  const text = parts.find((p) => /text\/plain/i.test(p.headers['content-type'] ?? '')) ?? parts[0];
  return decodePart(text);
}

async function mailNames() {
  return (await readdir(MAIL_DIR)).filter((n) => n.endsWith('.eml')).sort();
}

// What the mailbox holds now, so a later wait finds only mail sent after this point.
export async function mailMark() {
  return new Set(await mailNames());
}

// The newest message to `to` that arrived after `mark` (file names start with a timestamp).
export async function waitForMail(to, { mark, subject } = {}) {
  const deadline = Date.now() + MAIL_TIMEOUT_MS;
  const address = to.toLowerCase();
  while (Date.now() < deadline) {
    for (const name of (await mailNames()).reverse()) {
      if (mark?.has(name)) continue;
      const raw = await readFile(join(MAIL_DIR, name), 'utf8');
      const { headers } = splitMessage(raw);
      if (!(headers.to ?? '').toLowerCase().includes(address)) continue;
      if (subject && !subject.test(headers.subject ?? '')) continue;
      return { subject: headers.subject ?? '', text: plainText(raw) };
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`No e-mail to ${to}${subject ? ` matching ${subject}` : ''} within ${MAIL_TIMEOUT_MS / 1000} s in ${MAIL_DIR}`);
}

// A link from an e-mail, opened on the server under test (the e-mail carries the public URL).
export function linkIn(mail, pathPrefix) {
  const link = mail.text.match(/https?:\/\/\S+/g)?.find((l) => new URL(l).pathname.startsWith(pathPrefix));
  assert.ok(link, `no ${pathPrefix} link in "${mail.subject}":\n${mail.text}`);
  const { pathname, search } = new URL(link);
  return url(pathname + search);
}

export function codeIn(mail) {
  const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
  assert.ok(code, `no 6-digit code in "${mail.subject}":\n${mail.text}`);
  return code;
}

// ---- Browser helpers ---------------------------------------------------------------------------


// A fresh browser profile: no cookies, so no session and no trusted-device cookie. The pages
// run under the server's real Content-Security-Policy; axe is added as an init script, which the
// browser runs outside the page's CSP, so the policy need not be bypassed to audit the page.
// withSuiteBrowser, called in a describe, checks before its tests that the mailbox is set (unless
// the tests read no mail) and the server answers (saying how to fix either), and launches one
// Chromium for them, closed after. The browser is suite.browser once the tests run.
export function withSuiteBrowser({ mail = true } = {}) {
  const suite = { browser: undefined };
  before(async () => {
    if (mail) assert.ok(MAIL_DIR, "Set E2E_MAIL_DIR to the server's file:// mail directory (e.g. <CLEARVEST_DATA_DIR>/mail).");
    try {
      await fetch(url('/'), { signal: AbortSignal.timeout(STEP_TIMEOUT_MS) });
    } catch (error) {
      const reason = error.cause?.code ?? error.message;
      throw new Error(`No server answers at ${BASE_URL} (${reason}). Start it, or set E2E_BASE_URL.`);
    }
    suite.browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });
  });
  afterEach(expectQuietPages);
  after(async () => {
    await suite.browser?.close();
  });
  return suite;
}

// Every browser profile a test opened, until the test's end checks their pages.
const opened = [];

// After each test: no page of it logged a console error or threw, outside the steps a test
// allowed (allowConsoleErrors). A 4xx or 5xx answer to the app's own requests is a console
// error in Chromium ("Failed to load resource"), so an expected state answered with one fails
// here too. withSuiteBrowser registers it; a file that launches its own browser calls
// afterEach(expectQuietPages) itself.
export function expectQuietPages() {
  const sessions = opened.splice(0);
  const problems = sessions.flatMap((s) => s.problems);
  assert.deepEqual(problems, [], 'no console errors, uncaught errors or CSP violations in the pages');
}

// Runs `step` (a test's deliberate bad input) with the console errors it causes allowed; they
// are kept in session.allowed for the test to look at. Chromium reports a failed request as it
// arrives, before the page can show the answer, so everything the step waits for is covered.
export async function allowConsoleErrors(session, step) {
  session.allowing += 1;
  try {
    return await step();
  } finally {
    session.allowing -= 1;
  }
}

// Each browser context comes from an address of its own, passed as the reverse proxy in front of
// the test server would (X-Forwarded-For, from the benchmarking range 198.18.0.0/15): the
// server limits sign-ups per client address, and the whole suite signs up far more people than
// one person could from one address. A test that needs a given address sets the header itself.
function clientAddress() {
  const [a, b, c] = randomBytes(3);
  return `198.${18 + (a & 1)}.${b}.${(c % 254) + 1}`;
}

export async function freshBrowser(browser, contextOptions = {}) {
  const headers = { 'X-Forwarded-For': clientAddress(), ...contextOptions.extraHTTPHeaders };
  const context = await browser.newContext({ ...CONTEXT_DEFAULTS, ...contextOptions, extraHTTPHeaders: headers });
  const page = waitForAppOnLoad(await context.newPage());
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const session = { context, page, problems: [], allowed: [], allowing: 0 };
  page.on('pageerror', (error) => session.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const where = message.location()?.url;
    const text = `console error: ${message.text()}${where ? ` (${where})` : ''}`;
    // A CSP violation only shows up in the console; the page may still look fine. It is never
    // a deliberate step.
    if (session.allowing > 0 && !/content security policy/i.test(message.text())) session.allowed.push(text);
    else session.problems.push(text);
  });
  opened.push(session);
  return session;
}

export async function withBrowser(browser, fn, contextOptions) {
  const session = await freshBrowser(browser, contextOptions);
  try {
    await fn(session);
    assert.deepEqual(session.problems, [], 'no console errors, uncaught errors or CSP violations in the page');
  } finally {
    await session.context.close();
  }
}

// A JSON call from inside the page, with the page's cookies and the header the app sends: for
// steps a test needs done but does not test (staff decisions made elsewhere, the test clock).
export async function api(page, method, path, body) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const res = await fetch(path, {
        method,
        headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json().catch(() => null) };
    },
    { method, path, body },
  );
}

// Read models follow the events within moments; this asks again until `check` holds or the step
// timeout passes, and returns the last answer.
export async function until(page, path, check) {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const res = await api(page, 'GET', path);
    if (res.status === 200 && check(res.body)) return res.body;
    if (Date.now() > deadline) assert.fail(`${path} never answered as expected; last: ${JSON.stringify(res)}`);
    await page.waitForTimeout(100);
  }
}

// Uploads a small generated JPEG as both sides of the identity document.
export async function uploadIdentity(page) {
  return page.evaluate(async () => {
    const canvas = document.createElement('canvas');
    canvas.width = 120;
    canvas.height = 80;
    const g = canvas.getContext('2d');
    g.fillStyle = '#2c5f9e';
    g.fillRect(0, 0, 120, 80);
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.9));
    const form = new FormData();
    form.append('front', new File([blob], 'front.jpg', { type: 'image/jpeg' }));
    form.append('back', new File([blob], 'back.jpg', { type: 'image/jpeg' }));
    const res = await fetch('/api/users/uploadKycDocuments', { method: 'POST', headers: { 'X-Requested-With': 'XMLHttpRequest' }, body: form });
    return res.status;
  });
}

// Answers the step-up dialog a withdrawal asks for ("Confirm it's you") with the password of an
// account without an authenticator app; the request it held back then goes through.
export async function confirmItsMe(page, { password = PASSWORD, where } = {}) {
  const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
  await dialog.waitFor();
  if (where) await expectAccessible(page, where);
  await dialog.getByLabel('Password', { exact: true }).fill(password);
  await dialog.getByRole('button', { name: 'Confirm', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

export const heading = (page, name) => page.getByRole('heading', { level: 1, name });
export const field = (page, label) => page.getByLabel(label, { exact: true });
export const button = (page, name) => page.getByRole('button', { name, exact: true });
export const toast = (page, text) => page.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: false });

// Closes the toast that says `text`. A toast stays while the pointer rests on it (so it can be
// read), and the pointer of a test stays where it last clicked, often under the toast; a test
// that goes on to click near the bottom of the page closes it first, as a person would.
export async function dismissToast(page, text) {
  const item = page.getByRole('region', { name: 'Notifications' }).locator('.toast').filter({ hasText: text });
  await item.getByRole('button', { name: 'Dismiss' }).click();
  await item.waitFor({ state: 'detached' });
}

// axe-core runs in the page itself, put there once per document: the app has no frames, so
// nothing needs @axe-core/playwright's way of finishing the results in a second, blank page,
// which (with axe sent again for every check) made each check about five times slower. Every
// rule axe enables by default runs, as before.
async function runAxe(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const results = await window.axe.run(document, { resultTypes: ['violations'] });
    return results.violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      targets: nodes.map((node) => node.target.join(' ')),
    }));
  });
}

// A screenshot for a person to look at, in E2E_SCREENSHOT_DIR when it is set; without it, none
// is taken, as no check reads them.
export async function screenshot(page, name, options = {}) {
  const dir = process.env.E2E_SCREENSHOT_DIR;
  if (!dir) return;
  await mkdir(dir, { recursive: true });
  await page.screenshot({ path: join(dir, name), ...options });
}

// Full-page screenshots of the page at a desktop's and a phone's width (`name-desktop.png`,
// `name-phone.png`), when E2E_SCREENSHOT_DIR is set; the page keeps its own size afterwards.
export async function screenshotSizes(page, name) {
  if (!process.env.E2E_SCREENSHOT_DIR) return;
  const size = page.viewportSize();
  for (const [label, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]]) {
    await page.setViewportSize(viewport);
    await screenshot(page, `${name}-${label}.png`, { fullPage: true });
  }
  await page.setViewportSize(size);
}

export async function expectAccessible(page, where) {
  // Sections far down a page skip rendering until they come near the viewport (content-visibility),
  // and axe cannot judge the contrast of text that was never rendered; full-page screenshots
  // taken afterwards show them too.
  await page.evaluate(() => {
    for (const el of document.querySelectorAll('.render-when-near')) el.style.contentVisibility = 'visible';
  });
  const violations = await runAxe(page);
  // Every violation counts, whatever its impact.
  assert.deepEqual(violations, [], `axe violations on ${where}:\n${JSON.stringify(violations, null, 2)}`);
}

export async function register(page, { name = 'Erin Example', email, password = PASSWORD, referral } = {}) {
  await page.goto(url(referral ? `/register?ref=${referral}` : '/register'));
  await heading(page, 'Create an Account').waitFor();
  await field(page, 'Full name').fill(name);
  await field(page, 'Email').fill(email);
  await page.getByRole('option', { name: 'United Kingdom (+44)' }).waitFor({ state: 'attached' });
  await field(page, 'Country').selectOption('GB');
  await field(page, 'Phone number').fill('+447700900123');
  await field(page, 'Password').fill(password);
  await field(page, 'Confirm password').fill(password);
  await page.getByRole('checkbox', { name: /I agree to the Terms/ }).check();
  await button(page, 'Create account').click();
  await heading(page, 'Identity Check').waitFor();
  await toast(page, 'Registration Successful').waitFor();
}

// Signs up through the form and follows the link in the verification e-mail: the person on
// `page` is then signed in with a verified address, as every money flow needs.
export async function registerVerified(page, details) {
  const mark = await mailMark();
  await register(page, details);
  await page.goto(linkIn(await waitForMail(details.email, { mark, subject: /confirm|verif/i }), '/verify/'));
  await page.getByRole('heading', { name: 'E-mail verified' }).waitFor();
}

// ---- The same outcomes through the API, for tests whose subject comes after them ---------------
// The sign-up, verification and sign-in pages have their own tests (identity.test.mjs); a test
// about deposits or the staff console only needs someone signed in. These make the account or
// the session through the API with the browser profile's cookies, as the pages would, and leave
// the page on a plain file of the site (robots.txt): same origin, so api() works, without
// loading the app. The test then opens the page it is about.

async function onSite(page) {
  if (new URL(page.url()).origin !== new URL(BASE_URL).origin) await page.goto(url('/robots.txt'));
}

// registerVerified's outcome: the person on `page` is signed in with a verified address.
export async function signUpVerified(page, { name = 'Erin Example', email, password = PASSWORD, referral } = {}) {
  await onSite(page);
  const mark = await mailMark();
  const made = await api(page, 'POST', '/api/users/register', {
    name,
    email,
    password,
    confirmPassword: password,
    phone: '+447700900123',
    country: 'GB',
    acceptTerms: true,
    ...(referral ? { referralCode: referral } : {}),
  });
  assert.equal(made.status, 201, `register ${email}: ${JSON.stringify(made.body)}`);
  const link = new URL(linkIn(await waitForMail(email, { mark, subject: /confirm|verif/i }), '/verify/'));
  const verified = await api(page, 'PATCH', `/api/users/verifyUser/${link.pathname.slice('/verify/'.length)}`);
  assert.equal(verified.status, 200, `verify ${email}: ${JSON.stringify(verified.body)}`);
}

// login's outcome: signed in, with the e-mailed code when this browser is new to the account.
export async function signIn(page, email, password) {
  await onSite(page);
  const mark = await mailMark();
  const first = await api(page, 'POST', '/api/users/login', { email, password });
  if (first.status === 202 && first.body?.status === 'new_device') {
    const code = codeIn(await waitForMail(email, { mark, subject: /code/i }));
    const done = await api(page, 'POST', `/api/users/loginWithCode/${encodeURIComponent(email)}`, { loginCode: code });
    assert.equal(done.status, 200, `sign in ${email} with the code: ${JSON.stringify(done.body)}`);
    return;
  }
  assert.equal(first.status, 200, `sign in ${email}: ${JSON.stringify(first.body)}`);
}

// A USDT deposit of `amount` dollars requested through the API by the investor signed in on
// `page` (the deposit page has its own test); it stays pending.
export async function requestDeposit(page, amount) {
  const deposit = await api(page, 'POST', '/api/payments/create', {
    amount,
    asset: 'USDT',
    network: 'TRC20',
    txHash: `0x${randomBytes(32).toString('hex')}`,
  });
  assert.equal(deposit.status, 200, JSON.stringify(deposit.body));
  return deposit.body;
}

// requestDeposit, then confirmed in full by the staff member signed in on `staffPage`.
export async function confirmedDeposit(page, staffPage, amount) {
  const deposit = await requestDeposit(page, amount);
  const confirmed = await api(staffPage, 'PATCH', '/api/payments/confirmPayment', { transactionId: deposit.transactionId, amount });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  return deposit;
}

// Opens the signed-in app shell's account menu and returns it: the top bar's menu on a desktop,
// the "More" sheet of the bottom bar on a phone. Both hold Profile, Language and Log out.
export async function openAccountMenu(page) {
  const toggle = page.getByRole('button', { name: /^Account menu/ });
  const more = page.locator('.app-bottom-bar').getByRole('button', { name: 'More' });
  const shown = toggle.or(more).filter({ visible: true });
  await shown.waitFor();
  if (await toggle.isVisible()) {
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    const menu = page.locator('#account-menu');
    await menu.waitFor();
    return menu;
  }
  await more.click();
  const sheet = page.getByRole('dialog', { name: 'Account' });
  await sheet.waitFor();
  return sheet;
}

export async function logout(page) {
  const menu = await openAccountMenu(page);
  await menu.getByRole('button', { name: 'Log out' }).click();
  await heading(page, 'Sign In').waitFor();
  // The marketing navbar is back (its links folded behind Menu on a phone).
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Sign In', includeHidden: true }).waitFor({ state: 'attached' });
}

export async function submitLogin(page, email, password) {
  await page.goto(url('/login'));
  await heading(page, 'Sign In').waitFor();
  await field(page, 'Email').fill(email);
  await field(page, 'Password').fill(password);
  await button(page, 'Sign In').click();
}

// Signs in, answering the e-mailed code when this browser is new to the account.
export async function login(page, email, password) {
  const mark = await mailMark();
  await submitLogin(page, email, password);
  const dashboard = heading(page, /^Welcome, /);
  const code = heading(page, 'Enter your login code');
  await dashboard.or(code).waitFor();
  if (await code.isVisible()) {
    const mail = await waitForMail(email, { mark, subject: /code/i });
    await field(page, 'Login code').fill(codeIn(mail));
    await button(page, 'Sign in').click();
    await dashboard.waitFor();
  }
}
