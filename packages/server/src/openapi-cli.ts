import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiYaml } from './openapi.js';

/** `npm run openapi`: rewrites packages/server/openapi.yaml (next to dist/, where this file is bundled). */
const target = fileURLToPath(new URL('../openapi.yaml', import.meta.url));
writeFileSync(target, openApiYaml());
process.stdout.write(`wrote ${target}\n`);
