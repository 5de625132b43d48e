import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { routes, type RouteDef } from '@portico/api';
import { enterpriseRoutes } from '@portico/api/enterprise';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { enterpriseOpenApiYaml, enterpriseRouteRows } from '../src/openapi.js';
import { issueLicense } from './support/license.js';
import { useEnterprise } from './support/server.js';

const checkedIn = fileURLToPath(new URL('../openapi-enterprise.yaml', import.meta.url));
type Doc = { openapi: string; info: { title: string }; paths: Record<string, Record<string, { operationId: string; responses: object }>> };

describe('openapi-enterprise.yaml', () => {
  const doc = parse(enterpriseOpenApiYaml()) as Doc;

  it('is checked in up to date', () => {
    expect(readFileSync(checkedIn, 'utf8') === enterpriseOpenApiYaml(), 'packages/enterprise/openapi-enterprise.yaml is stale: run `npm run build && npm run openapi`').toBe(true);
  });

  it('is valid OpenAPI 3.0.3', async () => {
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.title).toBe('Portico Enterprise API');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('describes every Enterprise route and every OSS route but the placeholders the Enterprise routes replace', () => {
    for (const route of enterpriseRouteRows as readonly RouteDef[]) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation?.operationId, `${route.method} ${route.path}`).toBe(route.id);
      expect(Object.keys(operation!.responses)).toContain(String(route.status));
    }
    for (const route of routes as readonly RouteDef[]) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      if (route.enterprise && ['license', 'categories', 'views', 'audit', 'compliance', 'gatekeeper'].includes(route.enterprise.feature)) expect(operation?.operationId).not.toBe(route.id);
      else expect(operation?.operationId, `${route.method} ${route.path}`).toBe(route.id);
    }
  });
});

describe('the Enterprise explorer serves the Enterprise document', () => {
  const { ee } = useEnterprise('embedded', { license: issueLicense({ features: ['views'] }) });

  it('GET /swagger/openapi.yaml is openapi-enterprise.yaml', async () => {
    const res = await fetch(`${ee.url}/swagger/openapi.yaml`);
    expect(res.status).toBe(200);
    const served = await res.text();
    expect(served).toBe(enterpriseOpenApiYaml());
    expect(Object.keys((parse(served) as Doc).paths)).toEqual(expect.arrayContaining(enterpriseRoutes.map((r) => r.path)));
  });
});
