import { defineConfig } from 'tsup';

// index: the library (the Enterprise plugin, pool, migrations); bin: `portico-server-enterprise`; openapi-cli:
// `npm run openapi` writes openapi-enterprise.yaml.
// Workspace packages stay external and resolve to their own dist at run time.
export default defineConfig({
  entry: ['src/index.ts', 'src/bin.ts', 'src/openapi-cli.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node20',
});
