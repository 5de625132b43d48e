import { createHash } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiYaml } from '../src/openapi.js';
import { fakePortico } from './support/fake-portico.js';
import { startServer, type RunningServer } from './support/server.js';

const rawGet = (port: number, path: string) =>
  new Promise<number>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on('error', reject);
  });

describe('API explorer when disabled (the production default)', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const portico = fakePortico();
    expect(portico.config.swaggerUi).toBe(false);
    server = await startServer(portico);
  });
  afterAll(() => server.close());

  it.each(['/swagger/', '/swagger', '/swagger/openapi.yaml', '/swagger/swagger-ui-bundle.js'])('%s is a JSON 404', async (path) => {
    const res = await fetch(`${server.url}${path}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'route' } });
  });
});

describe('API explorer when enabled', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(fakePortico({ env: { SWAGGER_UI_ENABLED: 'true' } }));
  });
  afterAll(() => server.close());

  it('serves the spec as YAML, identical to the generated document', async () => {
    const res = await fetch(`${server.url}/swagger/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/yaml/);
    expect(await res.text()).toBe(openApiYaml());
  });

  it('serves the page with an init script pointing at the spec and keeping the authorization', async () => {
    for (const path of ['/swagger/', '/swagger']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain('url: "/swagger/openapi.yaml"');
      expect(html).toContain('persistAuthorization: true');
      expect(html).toContain('/swagger/swagger-ui-bundle.js');
    }
  });

  it('allows exactly its inline init script by hash in a page-specific CSP', async () => {
    const res = await fetch(`${server.url}/swagger/`);
    const csp = res.headers.get('content-security-policy') ?? '';
    const html = await res.text();
    const inline = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const hash = createHash('sha256').update(inline).digest('base64');
    expect(csp).toContain(`'sha256-${hash}'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("script-src 'self' 'unsafe-inline'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('serves Swagger UI assets from the package', async () => {
    const js = await fetch(`${server.url}/swagger/swagger-ui-bundle.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect((await js.text()).length).toBeGreaterThan(100_000);
    const css = await fetch(`${server.url}/swagger/swagger-ui.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    await css.arrayBuffer();
  });

  it.each(['/swagger/..%2Fpackage.json', '/swagger/%2e%2e%2F%2e%2e%2Fpackage.json', '/swagger/package.json', '/swagger/index.html', '/swagger/nope.js'])(
    'refuses %s with a JSON 404',
    async (path) => {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe('NOT_FOUND');
    },
  );

  it('never resolves a raw ../ path outside the asset folder', async () => {
    expect(await rawGet(server.port, '/swagger/../package.json')).toBe(404);
    expect(await rawGet(server.port, '/swagger/../../../../etc/passwd')).toBe(404);
  });
});
