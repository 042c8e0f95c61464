import { writeFileSync } from 'node:fs';
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

export default defineConfig(({ isSsrBuild }) => ({
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
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
    unstubGlobals: true,
  },
}));
