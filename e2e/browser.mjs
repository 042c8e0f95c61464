// Shared set-up for the browser tests: playwright-core and axe-core (whose source the accessibility
// checks evaluate in the page, where the page's CSP does not apply) are resolved from
// ui/node_modules (the repository has one JavaScript dependency tree), and Chromium is the
// system's; no browser is downloaded.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../ui/package.json', import.meta.url));

function load(name) {
  try {
    return require(name);
  } catch (error) {
    throw new Error(`Cannot load ${name} from ui/node_modules: run "npm ci" in ui/ first (${error.message})`);
  }
}

export const { chromium } = load('playwright-core');
export const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const BASE_URL = (process.env.E2E_BASE_URL || 'http://localhost:8080').replace(/\/+$/, '');
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
// Without these, Chromium waits on network services (updates, sync, QUIC probes) that a closed
// network never answers, and the launch hangs.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const STEP_TIMEOUT_MS = 10_000;

export const url = (path) => `${BASE_URL}${path}`;

// Browser contexts ask for reduced motion unless a test is about motion: an audit then sees each
// page as it settles, not a frame of an animation. The toast test checks the animated frames.
export const CONTEXT_DEFAULTS = { reducedMotion: 'reduce' };

// The marketing pages arrive prerendered and ask for the app's scripts only after their first
// paint (ui/scripts/prerender.mjs), so their buttons and forms work only once the app has taken
// the page over: <html data-app="ready"> (ui/src/main.tsx). Every full page load a test makes
// with goto or reload waits for that, as a person waits for a page to respond before using it.
export function waitForAppOnLoad(page) {
  for (const name of ['goto', 'reload']) {
    const navigate = page[name].bind(page);
    page[name] = async (...args) => {
      const response = await navigate(...args);
      if (/^text\/html/.test(response?.headers()['content-type'] ?? '')) {
        await page.locator('html[data-app="ready"]').waitFor({ state: 'attached' });
      }
      return response;
    };
  }
  return page;
}
