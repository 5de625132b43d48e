import { defineConfig } from 'tsup';

// @portico/api and @portico/client are bundled (resolved to their sources through the root tsconfig paths), so
// the built `portico` binary runs after building only this package and the published package needs no
// unpublished workspace package; third-party packages stay external and are this package's dependencies.
export default defineConfig({
  entry: ['src/bin.ts', 'src/index.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node20',
  noExternal: [/^@portico\//],
  external: ['zod', 'ws', 'undici', 'commander', '@inquirer/prompts', 'yaml', 'jsonpath-plus', 'ajv'],
});
