import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { enterpriseOpenApiYaml } from './openapi.js';

/** `npm run openapi`: rewrites packages/enterprise/openapi-enterprise.yaml (next to dist/, where this file is bundled). */
const target = fileURLToPath(new URL('../openapi-enterprise.yaml', import.meta.url));
writeFileSync(target, enterpriseOpenApiYaml());
process.stdout.write(`wrote ${target}\n`);
