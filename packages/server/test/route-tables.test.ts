import { z } from 'zod';
import { routes, type RouteDef } from '@portico/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteTable } from '../src/http/router.js';
import { fakePortico, goodToken } from './support/fake-portico.js';
import { bearer, json, startServer, type RunningServer } from './support/server.js';

/** A module's own table, added the way the Enterprise edition adds its routes. */
const greetings: RouteTable = {
  routes: [
    { id: 'greet', method: 'GET', path: '/api/v1/greetings/{who}', auth: 'user', tag: 'greetings', summary: 'Greet', params: z.object({ who: z.string().regex(/^[a-z]+$/) }), status: 200, response: z.object({ text: z.string() }) },
    { id: 'countGreetings', method: 'GET', path: '/api/v1/greetings/count', auth: 'user', tag: 'greetings', summary: 'Count', status: 200 },
  ] satisfies RouteDef[],
  handlers: {
    greet: ({ params }) => ({ text: `hello ${(params as { who: string }).who}` }),
    countGreetings: () => ({ count: 1 }),
  },
};

/** A table serving one of the OSS Enterprise families (its row names the family): it is served instead of gated. */
const license: RouteTable = {
  routes: [{ id: 'getLicense', method: 'GET', path: '/api/v1/license', auth: 'user', tag: 'license', summary: 'License', status: 200, family: 'license' }],
  handlers: { getLicense: () => ({ edition: 'enterprise' }) },
};

describe('an extra route table is served like the OSS one', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(fakePortico(), { routeTables: [greetings, license] });
  });
  afterAll(() => server.close());

  it('dispatches its rows through the same pipeline: auth, validated params, static before parameter', async () => {
    expect((await fetch(`${server.url}/api/v1/greetings/ada`)).status).toBe(401);
    const ok = await fetch(`${server.url}/api/v1/greetings/ada`, bearer(goodToken));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ text: 'hello ada' });
    expect(await (await fetch(`${server.url}/api/v1/greetings/count`, bearer(goodToken))).json()).toEqual({ count: 1 });
    const bad = await fetch(`${server.url}/api/v1/greetings/ADA`, bearer(goodToken));
    expect(bad.status).toBe(400);
    expect((await bad.json()).details.fields).toHaveProperty('who');
    const wrongMethod = await fetch(`${server.url}/api/v1/greetings/ada`, bearer(goodToken, json({})));
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
  });

  it('serves an Enterprise family a table gives a handler; the others stay gated', async () => {
    const served = await fetch(`${server.url}/api/v1/license`, bearer(goodToken));
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual({ edition: 'enterprise' });
    expect((await fetch(`${server.url}/api/v1/audit/x`, bearer(goodToken))).status).toBe(402);
  });

  it('the OSS routes are unchanged', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  it('refuses a table that claims an id the OSS table has', async () => {
    const clash: RouteTable = { routes: [routes.find((r) => r.id === 'healthz')!], handlers: {} };
    await expect(startServer(fakePortico(), { routeTables: [clash] })).rejects.toThrow(/two route tables/);
  });
});
