import { defineConfig } from 'tsup';
// Two entries: the contract (`@portico/api`) and its Enterprise part (`@portico/api/enterprise`), which the OSS
// server never imports.
export default defineConfig({ entry: ['src/index.ts', 'src/enterprise/index.ts'], format: ['esm'], dts: true, clean: true, sourcemap: true, target: 'node20' });
