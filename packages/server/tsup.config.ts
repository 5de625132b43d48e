import { defineConfig } from 'tsup';

// index: the library (createServer, buildOpenApi); bin: `portico-server` (keeps its shebang); openapi-cli:
// `npm run openapi`. Workspace packages stay external and resolve to their own dist at run time.
export default defineConfig({
  entry: ['src/index.ts', 'src/bin.ts', 'src/openapi-cli.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  sourcemap: true,
  target: 'node20',
});
