import { defineConfig } from 'tsup';
// The Casbin model and the built-in policy are data files (packages/core/src/rbac/*.conf, *.csv), bundled as text.
export default defineConfig({
  entry: ['src/index.ts'], format: ['esm'], dts: true, clean: true, sourcemap: true, target: 'node20',
  loader: { '.conf': 'text', '.csv': 'text' },
});
