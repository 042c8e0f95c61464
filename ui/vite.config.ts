import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vitest/config';

const apiServer = 'http://localhost:8080';
const outDir = resolve(import.meta.dirname, 'dist');

// The Go binary embeds dist/ with go:embed, which fails on a missing directory; the committed
// placeholder lets `go build` work in a fresh clone. Vite empties dist/ on every build, so the
// placeholder is written back afterwards to keep the work tree clean.
function keepDistPlaceholder(): Plugin {
  return {
    name: 'clearvest:keep-dist-placeholder',
    apply: 'build',
    closeBundle() {
      writeFileSync(resolve(outDir, '.gitkeep'), '');
    },
  };
}

// Which source modules ended up in which chunk, and how big each is there, beside Vite's manifest (dist/.vite/): the budget
// check (scripts/check-budgets.mjs) uses it to prove that no signed-in page's code is bundled into
// what the home page loads.
function chunkModules(): Plugin {
  return {
    name: 'clearvest:chunk-modules',
    apply: 'build',
    generateBundle(_options, bundle) {
      const root = `${import.meta.dirname}/`;
      // chunk file → source module (relative to ui/) → its minified length in the chunk
      const chunks: Record<string, Record<string, number>> = {};
      for (const output of Object.values(bundle)) {
        if (output.type !== 'chunk') continue;
        chunks[output.fileName] = Object.fromEntries(
          Object.entries(output.modules)
            .filter(([id]) => id.startsWith(root))
            .map(([id, module]) => [id.slice(root.length), module.renderedLength]),
        );
      }
      this.emitFile({ type: 'asset', fileName: '.vite/chunk-modules.json', source: JSON.stringify(chunks, null, 1) });
    },
  };
}

// The app is written against React's API and runs on Preact's implementation of it
// (preact/compat): the same components, about 57 KB less JavaScript gzipped on every page
// (docs/public-site.md, "Budgets"). Every import of React, ReactDOM or the JSX runtime, the app's and its
// libraries', resolves to Preact: in the browser build, in the prerender and in unit tests, so
// tests exercise what ships.
const preact = [
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom\/server$/, replacement: 'preact/compat/server' },
  { find: /^react-dom\/test-utils$/, replacement: 'preact/test-utils' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
  { find: /^react$/, replacement: 'preact/compat' },
];

// Unit tests run in Node, which would load these libraries' CommonJS builds, and those require
// the real React past the aliases above; their ES module builds go through Vite instead.
const esmBuilds = [
  { find: /^@testing-library\/react$/, replacement: modulePath('@testing-library/react/dist/@testing-library/react.esm.js') },
  { find: /^react-router$/, replacement: modulePath('react-router/dist/development/index.mjs') },
  { find: /^recharts$/, replacement: modulePath('recharts/es6/index.js') },
];

const freshModules = [
  'src/i18n/i18n.test.tsx',
  'src/i18n/unavailable.test.ts',
  'src/features/kyc/UploadKycPage.test.tsx',
  'src/features/market/MarketRatesPage.test.tsx',
];

function modulePath(path: string) {
  return resolve(import.meta.dirname, 'node_modules', path);
}

export default defineConfig(({ isSsrBuild }) => ({
  resolve: { alias: preact },
  // Bundled, not loaded from node_modules at prerender time, so the aliases apply to libraries too.
  ssr: { noExternal: true },
  plugins: isSsrBuild ? [react()] : [react(), keepDistPlaceholder(), chunkModules()],
  build: isSsrBuild
    ? {
        // The prerender step's server bundle (src/entry-server.tsx); it never ships.
        outDir: resolve(import.meta.dirname, 'dist-ssr'),
        emptyOutDir: true,
        sourcemap: false,
      }
    : {
        outDir,
        emptyOutDir: true,
        // Hashed file names let the server cache /assets/* forever.
        assetsDir: 'assets',
        sourcemap: false,
        // dist/.vite/manifest.json: every chunk with what it imports, read by the budget check.
        manifest: true,
        // What every page runs first comes in two files instead of sixteen: the libraries, which
        // change rarely and stay cached across releases, and the app's shell. Each request the
        // starter issues costs main-thread time on a slow phone (docs/public-site.md).
        rolldownOptions: {
          output: {
            codeSplitting: {
              groups: [
                { name: 'vendor', tags: ['$initial'], test: /node_modules/, priority: 2 },
                { name: 'shell', tags: ['$initial'], priority: 1 },
              ],
            },
          },
        },
      },
  server: {
    proxy: {
      '/api': apiServer,
      '/healthz': apiServer,
      '/metrics': apiServer,
    },
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    // Most test files share one jsdom and one module graph per worker, which takes the suite from
    // about 155 s to about 60 s on two cores: a new environment and fresh imports for each of 60
    // files cost more than the tests. setup.ts puts the shared state back after every test. The
    // files below need modules nobody else has loaded (vi.mock, or a language not yet fetched),
    // so they get a fresh module graph each.
    projects: [
      { extends: true, test: { name: 'shared', isolate: false, include: ['src/**/*.test.{ts,tsx}'], exclude: freshModules } },
      { extends: true, test: { name: 'fresh', include: freshModules } },
    ],
    // One worker per core: Vitest's default leaves one core idle, which on a two-core machine is half.
    maxWorkers: availableParallelism(),
    restoreMocks: true,
    alias: esmBuilds,
    // Libraries go through Vite (and so through the aliases) instead of Node's loader...
    server: { deps: { inline: true } },
    // ...and the CommonJS-only shims that React Redux and react-i18next import are bundled first.
    deps: { optimizer: { client: { enabled: true, include: ['use-sync-external-store/with-selector.js', 'use-sync-external-store/shim'] } } },
    unstubGlobals: true,
  },
}));
