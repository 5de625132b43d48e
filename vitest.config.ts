import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const src = (p: string) => fileURLToPath(new URL(`./packages/${p}/src/index.ts`, import.meta.url));

// In-process tests import package sources directly; tests that spawn bins use the built dist (npm test builds first).
export default defineConfig({
  resolve: {
    alias: {
      '@portico/api': src('api'),
      '@portico/core': src('core'),
      '@portico/server': src('server'),
      '@portico/client': src('client'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/**/*.test.ts', 'deploy/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
