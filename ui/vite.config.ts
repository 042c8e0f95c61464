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

export default defineConfig({
  plugins: [react(), keepDistPlaceholder()],
  build: {
    outDir,
    emptyOutDir: true,
    // Hashed file names let the server cache /assets/* forever.
    assetsDir: 'assets',
    sourcemap: false,
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
});
