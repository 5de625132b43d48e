import { enterpriseFamilies } from '@portico/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakePortico, goodToken } from './support/fake-portico.js';
import { bearer, startServer, type RunningServer } from './support/server.js';

describe('Enterprise families in the OSS build', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer(fakePortico());
  });
  afterAll(() => server.close());

  const cases = Object.values(enterpriseFamilies).flatMap((family) =>
    ['', '/x', '/deep/er/path'].flatMap((suffix) =>
      ['GET', 'POST', 'DELETE'].map((method) => ({ family, path: `${family.prefix}${suffix}`, method })),
    ),
  );

  it.each(cases)('$method $path → OSS answer', async ({ family, path, method }) => {
    const res = await fetch(`${server.url}${path}`, bearer(goodToken, { method }));
    expect(res.status).toBe(family.ossStatus);
    const body = await res.json();
    if (family.ossStatus === 402) {
      expect(body).toMatchObject({ code: 'LICENSE_REQUIRED', details: { feature: family.feature } });
    } else {
      expect(body).toMatchObject({ code: 'NOT_FOUND', details: { resource: 'route', identifier: path } });
    }
  });

  it.each(Object.values(enterpriseFamilies).map((f) => f.prefix))('%s without credentials → 401', async (prefix) => {
    const res = await fetch(`${server.url}${prefix}/anything`);
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe('UNAUTHORIZED');
  });

  it('does not treat neighbours of a family as part of it', async () => {
    const res = await fetch(`${server.url}/api/v1/licenses`, bearer(goodToken));
    expect(res.status).toBe(404);
    expect((await res.json()).details).toEqual({ resource: 'route', identifier: '/api/v1/licenses' });
    const sso = await fetch(`${server.url}/api/v1/settings/sso/providers`);
    expect(sso.status).toBe(200);
  });

  it('gates regardless of the path case', async () => {
    const res = await fetch(`${server.url}/API/v1/License`, bearer(goodToken));
    expect(res.status).toBe(402);
  });
});
