import { defineConfig } from 'tsup';

// @portico/api is bundled into dist (code and types), so the published package needs no unpublished
// workspace package; its own dependency, zod, is a dependency here. `ws` and `undici` stay external and are only
// reached through dynamic imports, so a browser bundle of the SDK never pulls them in (see README).
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: { resolve: [/^@portico\//] },
  clean: true,
  sourcemap: true,
  target: 'node20',
  noExternal: [/^@portico\//],
  external: ['zod', 'ws', 'undici'],
});
