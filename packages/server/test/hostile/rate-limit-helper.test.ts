import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { routeById } from '@portico/api';
import { createMemoryKeyValue } from '../../../core/src/adapters/memory-kv.js';
import { createLimits } from '../../../core/src/limits/index.js';
import { loadConfig, PorticoError, systemActor } from '@portico/core';
import { rateLimitFor } from '../../src/http/rate-limit.js';

/** The headers a response got, without a socket. */
const response = () => {
  const headers: Record<string, string> = {};
  return { headers, res: { setHeader: (name: string, value: string) => void (headers[name] = value) } as unknown as ServerResponse };
};

const limits = (rateLimits: string) =>
  createLimits({ kv: createMemoryKeyValue(), config: loadConfig({ PORTICO_PROFILE: 'development', PORTICO_RATE_LIMITS: rateLimits }) });

describe('rateLimitFor (the pipeline step of contract §9)', () => {
  const alice = { ...systemActor('alice'), local: false };
  const bob = { ...systemActor('bob'), local: false };

  it('counts a route with a bucket against the client IP, whoever the caller is', async () => {
    const l = limits('{"namespaces":2}');
    const route = routeById.projectNamespaces;
    const first = response();
    await rateLimitFor(l, route, { ip: '198.51.100.1', actor: alice }, first.res);
    // Two a minute, smoothed: the bucket is full again 30 s after one request, and refills one every 30 s.
    expect(first.headers).toEqual({ 'RateLimit-Limit': '2', 'RateLimit-Remaining': '1', 'RateLimit-Reset': '30' });
    await rateLimitFor(l, route, { ip: '198.51.100.1', actor: bob }, response().res);
    const refused = await rateLimitFor(l, route, { ip: '198.51.100.1', actor: alice }, response().res).catch((e: PorticoError) => e);
    expect(refused).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED', retryAfter: 30, headers: { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '60' } });
    await expect(rateLimitFor(l, route, { ip: '198.51.100.2', actor: alice }, response().res)).resolves.toBeUndefined();
  });

  it('counts other authenticated routes against the caller, and leaves unauthenticated routes without a bucket alone', async () => {
    const l = limits('{"user":1}');
    await rateLimitFor(l, routeById.listProjects, { ip: '198.51.100.1', actor: alice }, response().res);
    await expect(rateLimitFor(l, routeById.getAccount, { ip: '198.51.100.9', actor: alice }, response().res)).rejects.toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    await expect(rateLimitFor(l, routeById.listProjects, { ip: '198.51.100.1', actor: bob }, response().res)).resolves.toBeUndefined();
    for (let i = 0; i < 5; i++) {
      const probe = response();
      await rateLimitFor(l, routeById.readyz, { ip: '198.51.100.1' }, probe.res);
      expect(probe.headers).toEqual({});
    }
  });

  it('sets no headers for an unlimited bucket', async () => {
    const off = response();
    await rateLimitFor(limits('0'), routeById.localLogin, { ip: '198.51.100.1' }, off.res);
    expect(off.headers).toEqual({});
  });

  it('fails closed when the store cannot count', async () => {
    const broken = { check: () => Promise.reject(new PorticoError('SERVICE_UNAVAILABLE', 'redis is unavailable, retry later', {}, { retryAfter: 2 })) };
    const r = response();
    await expect(rateLimitFor(broken, routeById.ssoProviders, { ip: '198.51.100.1' }, r.res)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', retryAfter: 2 });
    expect(r.headers).toEqual({});
  });
});
