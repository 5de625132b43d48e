import { defineConfig } from 'tsup';

// `ws` and `undici` stay external and are only reached through dynamic imports, so a browser bundle of the
// SDK never pulls them in (see README).
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  external: ['@portico/api', 'zod', 'ws', 'undici'],
});
