import { chromium, CHROMIUM_ARGS, CHROMIUM_PATH } from './browser.mjs';
import * as flows from './flows.mjs';
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
const admin = flows.adminCredentials();
async function time(label, fn) {
  const s = await flows.freshBrowser(browser);
  const t = performance.now();
  await fn(s.page);
  const ms = performance.now() - t;
  await s.context.close();
  return ms;
}
const r = { ui: [], apiSignUp: [], login: [], signIn: [] };
for (let i = 0; i < 4; i++) {
  r.ui.push(await time('ui', (p) => flows.registerVerified(p, { email: flows.uniqueEmail('b') })));
  r.apiSignUp.push(await time('api', (p) => flows.signUpVerified(p, { email: flows.uniqueEmail('b') })));
  r.login.push(await time('login', (p) => flows.login(p, admin.email, admin.password)));
  r.signIn.push(await time('signIn', (p) => flows.signIn(p, admin.email, admin.password)));
}
for (const [k, v] of Object.entries(r)) console.log(k, v.map((x) => Math.round(x)).join(' '));
await browser.close();
