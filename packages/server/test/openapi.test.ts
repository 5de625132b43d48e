import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import SwaggerParser from '@apidevtools/swagger-parser';
import { routes, type RouteDef } from '@portico/api';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildOpenApi, openApiYaml } from '../src/openapi.js';

const checkedIn = fileURLToPath(new URL('../openapi.yaml', import.meta.url));
type Doc = { openapi: string; paths: Record<string, Record<string, Record<string, unknown>>>; components: Record<string, Record<string, unknown>> };

describe('OpenAPI document', () => {
  const doc = buildOpenApi() as Doc;

  it('is checked in up to date', () => {
    const onDisk = readFileSync(checkedIn, 'utf8');
    expect(onDisk === openApiYaml(), 'packages/server/openapi.yaml is stale: run `npm run build && npm run openapi`').toBe(true);
  });

  it('is valid OpenAPI 3.0.3', async () => {
    expect(doc.openapi).toBe('3.0.3');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
    // The served YAML is the same document.
    expect(parse(openApiYaml())).toEqual(doc);
  });

  it('describes every route of the table with its method and operation id', () => {
    for (const route of routes as readonly RouteDef[]) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation.operationId).toBe(route.id);
      expect(operation.tags).toEqual([route.tag]);
      expect(Object.keys(operation.responses as object)).toContain(String(route.status));
    }
  });

  it('asks for the bearer token or the cookie on authenticated routes only', () => {
    expect(doc.components.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      cookieAuth: { type: 'apiKey', in: 'cookie', name: 'portico_session' },
    });
    expect(doc.paths['/api/v1/rgds'].get.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
    expect(doc.paths['/api/v1/auth/local/login'].post.security).toBeUndefined();
  });

  it('documents parameters, bodies and error answers from the schemas', () => {
    const list = doc.paths['/api/v1/rgds'].get;
    const page = (list.parameters as { name: string; in: string; schema: Record<string, unknown> }[]).find((p) => p.name === 'page');
    expect(page).toMatchObject({ in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } });
    expect(list.responses).toMatchObject({
      '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/RgdList' } } } },
      '400': { $ref: '#/components/responses/BadRequest' },
      '401': { $ref: '#/components/responses/Unauthorized' },
    });

    const create = doc.paths['/api/v1/namespaces/{namespace}/instances/{kind}'].post;
    expect((create.parameters as { name: string; in: string; required: boolean }[]).map((p) => [p.name, p.in, p.required])).toEqual([
      ['namespace', 'path', true],
      ['kind', 'path', true],
    ]);
    expect(create.requestBody).toMatchObject({ required: true, content: { 'application/json': { schema: { type: 'object' } } } });
    expect(Object.keys(create.responses as object)).toEqual(expect.arrayContaining(['201', '403', '404', '409', '413', '422', '429', '500']));

    expect(doc.paths['/api/v1/license'].get.responses).toHaveProperty('402');
    expect(doc.components.schemas).toHaveProperty('ErrorEnvelope');
    expect(doc.components.schemas).toHaveProperty('Instance');
  });
});
