import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';
import { i18n } from '../i18n';

// Browsers resolve a relative Request URL against the page; Node's Request does not, and the
// jsdom environment keeps Node's. Resolving against jsdom's location keeps baseUrl '/api' as in
// production instead of bending the app for tests.
// Files that share a worker run this setup again in the same global scope; the mark keeps one
// wrapper instead of a chain of them.
const resolvesAgainstPage = Symbol.for('clearvest.test.requestResolvesAgainstPage');
if (!(resolvesAgainstPage in globalThis.Request)) {
  const NodeRequest = globalThis.Request;
  globalThis.Request = class extends NodeRequest {
    static [resolvesAgainstPage] = true;
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === 'string' ? new URL(input, window.location.href) : input, init);
    }
  };
}

// Pages are lazy chunks; the first import of one in a test file compiles it, which can take
// longer than the default second on a busy machine.
configure({ asyncUtilTimeout: 5000 });
vi.setConfig({ testTimeout: 15_000 });

beforeEach(() => {
  // No test may reach a real server; tests that care about responses stub fetch themselves.
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => Response.json({ message: 'No server in unit tests' }, { status: 503 })),
  );
});

afterEach(async () => {
  cleanup();
  // The page loader remembers a reload in sessionStorage; each test starts with a fresh tab.
  sessionStorage.clear();
  // Each test starts in English, with no language chosen.
  localStorage.clear();
  await i18n.changeLanguage('en');
});
