// Renders every screen of the app for people to look at (`make screens`, scripts/screens.sh): each
// page of the route table (ui/src/app/routes.ts) that a visitor, the demo investor and the demo
// admin may open, on a phone (375×812) and a desktop (1440×900), as full-page PNGs, with an
// index.html contact sheet. Parameterised pages get real ids from the demo data (the investor's
// deposits and investments, the identity check queue, the users) or links the script has the
// server send (a password reset). Not a test: a page that fails to render is noted on the sheet
// and the run goes on. Needs the server's address and mail directory (E2E_BASE_URL,
// E2E_MAIL_DIR), the demo logins (SCREENS_LOGINS) and the folder to write (SCREENS_DIR).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { CHROMIUM_ARGS, CHROMIUM_PATH, chromium, CONTEXT_DEFAULTS, url } from '../e2e/browser.mjs';
import { api, freshBrowser, linkIn, login, mailMark, waitForMail } from '../e2e/flows.mjs';

const OUT = process.env.SCREENS_DIR;
if (!OUT) throw new Error('Set SCREENS_DIR to the folder the screens go to.');
const SIZES = {
  phone: { viewport: { width: 375, height: 812 }, hasTouch: true, isMobile: true },
  desktop: { viewport: { width: 1440, height: 900 } },
};

// The route table as ui/src/app/routes.ts writes it: each entry's path and who may open it.
async function routeTable() {
  const source = await readFile(new URL('../ui/src/app/routes.ts', import.meta.url), 'utf8');
  const table = source.slice(source.indexOf('export const pages'));
  return [...table.matchAll(/\{\s*path: '([^']+)',[\s\S]*?access: '(\w+)'/g)]
    .map(([, path, access]) => ({ path, access }))
    .filter((route) => route.path !== '*');
}

// The demo logins `serve` writes for a development data directory: role, e-mail, password.
async function demoLogins() {
  const lines = (await readFile(process.env.SCREENS_LOGINS, 'utf8')).split('\n').filter((l) => l && !l.startsWith('#'));
  const rows = lines.map((l) => l.split('\t'));
  const find = (pred) => {
    const row = rows.find(pred);
    if (!row) throw new Error(`no such demo login in ${process.env.SCREENS_LOGINS}`);
    return { email: row[1], password: row[2] };
  };
  return { staff: find((r) => r[0] === 'admin'), investor: find((r) => r[1].startsWith('investor@')) };
}

const ids = (list) =>
  (Array.isArray(list) ? list : []).map((item) => item?._id ?? item?.id ?? item?.transactionId).filter((id) => typeof id === 'string');
// The first array of records anywhere in an answer (answers wrap their lists differently).
function records(answer) {
  if (Array.isArray(answer)) return answer;
  for (const value of Object.values(answer ?? {})) {
    if (Array.isArray(value) && value.some((v) => v && typeof v === 'object')) return value;
  }
  return [];
}

async function get(page, path) {
  const { status, body } = await api(page, 'GET', `/api${path}`);
  return status === 200 ? body : undefined;
}

// Real values for each path parameter, from what the signed-in pages can read.
async function parameters(investorPage, staffPage, investorEmail) {
  const history = records(await get(investorPage, '/invest/getTransactionHistory'));
  const investments = records(await get(investorPage, '/invest/investment-history'));
  const withdrawals = records(await get(investorPage, '/withDraw/history'));
  const kyc = records(await get(staffPage, '/users/kyc/pending'));
  const pendingDeposits = records(await get(staffPage, '/payments/pending-deposit'));
  const users = records(await get(staffPage, '/users/getUsers'));
  // A deposit's transaction id (DEP-…) wherever the investor's history names one.
  const depositId = JSON.stringify(history).match(/"(DEP-[A-Z0-9-]+)"/)?.[1];
  const investor = users.find((u) => u.email === investorEmail) ?? users[0];
  // A password reset link, as the demo investor would get it by e-mail.
  let resetToken;
  try {
    const mark = await mailMark();
    await api(investorPage, 'POST', '/api/users/forgotPassword', { email: investorEmail });
    const mail = await waitForMail(investorEmail, { mark, subject: /password/i });
    resetToken = linkIn(mail, '/resetPassword/').split('/').pop();
  } catch {
    resetToken = undefined;
  }
  return {
    ':investmentId': ids(investments)[0],
    // The deposit waiting for staff; else one of the investor's deposits (its reference).
    ':transactionId': ids(pendingDeposits)[0] ?? depositId,
    ':id': { '/pending-kyc/:id': ids(kyc)[0], '/withdrawal/:id': ids(withdrawals)[0], default: investor?._id ?? investor?.id },
    ':resetToken': resetToken,
    ':email': encodeURIComponent(investorEmail),
    // Links only an e-mail of another flow carries; the page's answer to an unknown link is shown.
    ':verificationToken': 'not-a-real-link',
    ':token': 'not-a-real-link',
  };
}

function fill(path, params) {
  let missing = false;
  const filled = path.replace(/:[A-Za-z]+/g, (name) => {
    const value = typeof params[name] === 'object' ? (path in params[name] ? params[name][path] : params[name].default) : params[name];
    if (!value) missing = true;
    return value ?? name;
  });
  return missing ? undefined : filled;
}

const mayOpen = (access, who) =>
  access === 'public' || (access === 'guest' ? who === 'visitor' : who === 'staff' || (who === 'investor' && access === 'signedIn'));
const slug = (path) => (path === '/' ? 'home' : path.slice(1).replace(/[^A-Za-z0-9-]+/g, '_'));

async function shoot(session, who, route, path, size, shots) {
  const file = `${who}-${slug(route.path)}-${size}.png`;
  try {
    await session.page.goto(url(path));
    await session.page.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined);
    await session.page.screenshot({ path: join(OUT, file), fullPage: true });
    shots.push({ who, route: route.path, path, size, file });
  } catch (error) {
    shots.push({ who, route: route.path, path, size, error: error.message.split('\n')[0] });
  }
}

const escape = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function contactSheet(shots) {
  const sections = ['visitor', 'investor', 'staff'].map((who) => {
    const rows = [...new Set(shots.filter((s) => s.who === who).map((s) => s.route))].map((route) => {
      const cells = Object.keys(SIZES).map((size) => {
        const shot = shots.find((s) => s.who === who && s.route === route && s.size === size);
        if (!shot) return '<td></td>';
        if (shot.error) return `<td class="error">${escape(size)}: ${escape(shot.error)}</td>`;
        return `<td><a href="${escape(shot.file)}"><img src="${escape(shot.file)}" alt="${escape(`${route} on a ${size}`)}" loading="lazy" class="${size}"></a></td>`;
      });
      const path = shots.find((s) => s.who === who && s.route === route).path;
      return `<tr><th scope="row">${escape(route)}${path && path !== route ? `<br><small>${escape(path)}</small>` : ''}</th>${cells.join('')}</tr>`;
    });
    return `<h2 id="${who}">${who === 'visitor' ? 'Signed out' : who === 'investor' ? 'Investor' : 'Staff (admin)'}</h2>
<table><thead><tr><th>page</th><th>phone 375×812</th><th>desktop 1440×900</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`;
  });
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Clearvest screens</title>
<style>body{font:14px system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.5rem;vertical-align:top;text-align:left}
img{display:block;object-fit:cover;object-position:top}img.phone{width:188px;height:406px}img.desktop{width:480px;height:300px}.error{color:#a00}</style></head>
<body><h1>Clearvest screens</h1><p>${escape(new Date().toISOString())} · ${shots.filter((s) => s.file).length} screenshots, ${shots.filter((s) => s.error).length} failed · <a href="#visitor">signed out</a> · <a href="#investor">investor</a> · <a href="#staff">staff</a></p>
${sections.join('\n')}</body></html>\n`;
}

await mkdir(OUT, { recursive: true });
const table = await routeTable();
const logins = await demoLogins();
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });
const shots = [];
try {
  // One signed-in browser per role and size, signed in once (a new browser gets a login code).
  const sessions = {};
  for (const size of Object.keys(SIZES)) {
    for (const who of ['visitor', 'investor', 'staff']) {
      const session = await freshBrowser(browser, { ...CONTEXT_DEFAULTS, ...SIZES[size] });
      if (who !== 'visitor') await login(session.page, logins[who].email, logins[who].password);
      sessions[`${who}-${size}`] = session;
    }
  }
  const params = await parameters(sessions['investor-desktop'].page, sessions['staff-desktop'].page, logins.investor.email);
  for (const who of ['visitor', 'investor', 'staff']) {
    for (const route of table.filter((r) => mayOpen(r.access, who))) {
      const path = fill(route.path, params);
      for (const size of Object.keys(SIZES)) {
        if (!path) shots.push({ who, route: route.path, size, error: 'no such record in the demo data' });
        else await shoot(sessions[`${who}-${size}`], who, route, path, size, shots);
      }
    }
  }
  for (const session of Object.values(sessions)) await session.context.close();
} finally {
  await browser.close();
}
await writeFile(join(OUT, 'index.html'), contactSheet(shots));
const failed = shots.filter((s) => s.error);
for (const shot of failed) console.log(`not rendered: ${shot.who} ${shot.route} (${shot.size}): ${shot.error}`);
console.log(`${shots.length - failed.length} screenshots in ${OUT} (contact sheet: ${join(OUT, 'index.html')})`);
