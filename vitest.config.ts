import { defineConfig } from 'vitest/config';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const src = (p: string) => fileURLToPath(new URL(`./packages/${p}/src/index.ts`, import.meta.url));

// In-process tests import package sources directly; tests that spawn bins use the built dist (npm test builds first).
export default defineConfig({
  // Data files of core (the Casbin model, the built-in policy) load as text, as tsup's `text` loader bundles them.
  plugins: [
    {
      name: 'portico-text-files',
      transform: (code: string, id: string) => (/\.(conf|csv)$/.test(id) ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined),
    },
  ],
  resolve: {
    alias: {
      // Before '@portico/api', which would otherwise match the subpath as a prefix.
      '@portico/api/enterprise': fileURLToPath(new URL('./packages/api/src/enterprise/index.ts', import.meta.url)),
      '@portico/api': src('api'),
      '@portico/core': src('core'),
      '@portico/server': src('server'),
      '@portico/client': src('client'),
      '@portico/enterprise': src('enterprise'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/**/*.test.ts', 'deploy/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the CPUs: a single worker on a 2-core CI machine, where most
    // test files wait on I/O (servers, Redis, PostgreSQL, child processes) rather than on the CPU.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
  },
});
