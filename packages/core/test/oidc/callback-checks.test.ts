import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resources } from '../../src/ports/cluster.js';
import { fakeClock } from '../auth/fakes.js';
import { startCraftedProvider, type CraftedProvider } from './crafted-provider.js';
import { ctx, oidcWorld, queryOf, rejection } from './world.js';

const SECRET = 'crafted-client-secret';
const seconds = (ms: number) => Math.floor(ms / 1000);

describe('OIDC callback checks, with a provider whose answers the test crafts', () => {
  let idp: CraftedProvider;

  beforeAll(async () => {
    idp = await startCraftedProvider();
  });
  afterAll(() => idp.close());
  beforeEach(() => {
    idp.discovery = {};
    idp.tokenResponse = undefined;
    idp.userinfo = undefined;
    idp.down = false;
    idp.tokenRequests.length = 0;
    idp.requests.length = 0;
  });

  async function start(opts: { env?: Record<string, string>; now?: ReturnType<typeof fakeClock>; redirect?: string; secret?: string | null } = {}) {
    const now = opts.now ?? Date.now;
    const w = await oidcWorld({ issuer: idp.issuer, clientSecret: opts.secret === null ? undefined : (opts.secret ?? SECRET), env: opts.env, now: opts.now });
    const authUrl = new URL(await w.auth.oidcLogin({ redirect: opts.redirect ?? '/home' }, ctx));
    const p = Object.fromEntries(authUrl.searchParams);
    const claims = (extra: Record<string, unknown> = {}) => ({
      iss: idp.issuer,
      aud: 'portico',
      sub: 'carol',
      nonce: p.nonce,
      iat: seconds(now()),
      exp: seconds(now()) + 300,
      email: 'carol@example.com',
      name: 'Carol',
      groups: ['team-c'],
      ...extra,
    });
    const callback = (query: Record<string, string | undefined> = {}) => w.auth.oidcCallback({ state: p.state, code: 'provider-code', iss: idp.issuer, ...query }, ctx);
    return { w, p, claims, callback };
  }

  /** The callback's answer must be the redirect with `error=<code>` and nothing else from the request. */
  const expectError = (location: string, code: string) => expect(location).toBe(`/home?error=${code}`);

  it('accepts a well-formed ID token: verifier, redirect URI and Basic client authentication reach the token endpoint', async () => {
    const { w, p, claims, callback } = await start();
    idp.nextIdToken = await idp.mint(claims());
    const location = await callback();
    expect(location).toMatch(/^\/home\?code=[A-Za-z0-9_-]{43}$/);

    const [request] = idp.tokenRequests;
    expect(Object.fromEntries(request.form)).toEqual({
      grant_type: 'authorization_code',
      code: 'provider-code',
      redirect_uri: 'http://portico.test/api/v1/auth/oidc/callback',
      code_verifier: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
    });
    expect(createHash('sha256').update(request.form.get('code_verifier')!).digest('base64url')).toBe(p.code_challenge);
    expect(request.authorization).toBe(`Basic ${Buffer.from(`portico:${SECRET}`).toString('base64')}`);
    // Everything was in the ID token: no UserInfo call.
    expect(idp.requests).not.toContain('GET /userinfo');

    const session = await w.auth.tokenExchange({ code: queryOf(location).code }, ctx);
    expect(session.user).toMatchObject({ id: 'oidc:corp:carol', email: 'carol@example.com', displayName: 'Carol', groups: ['team-c'] });
  });

  it.each([
    ['a wrong nonce', async (c: Record<string, unknown>) => idp.mint({ ...c, nonce: 'another-sign-in' })],
    ['no nonce', async (c: Record<string, unknown>) => idp.mint({ ...c, nonce: undefined })],
    ['a key the provider does not publish (same kid)', async (c: Record<string, unknown>) => idp.mint(c, { key: await idp.foreignKey() })],
    ['a key the provider does not publish (unknown kid)', async (c: Record<string, unknown>) => idp.mint(c, { key: await idp.foreignKey(), kid: 'rogue' })],
    ['an expired token', async (c: Record<string, unknown>) => idp.mint({ ...c, iat: seconds(Date.now()) - 7200, exp: seconds(Date.now()) - 3600 })],
    ['another audience', async (c: Record<string, unknown>) => idp.mint({ ...c, aud: 'some-other-client' })],
    ['several audiences and no azp', async (c: Record<string, unknown>) => idp.mint({ ...c, aud: ['portico', 'other'] })],
    ['another issuer', async (c: Record<string, unknown>) => idp.mint({ ...c, iss: 'https://evil.example' })],
    ['HS256 with the client secret', async (c: Record<string, unknown>) => idp.mint(c, { alg: 'HS256', secret: new TextEncoder().encode(SECRET) })],
    ['alg none', async (c: Record<string, unknown>) => `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(c)).toString('base64url')}.`],
    ['a tampered payload', async (c: Record<string, unknown>) => {
      const [h, , s] = (await idp.mint(c)).split('.');
      return `${h}.${Buffer.from(JSON.stringify({ ...c, groups: ['admins'] })).toString('base64url')}.${s}`;
    }],
    ['no sub', async (c: Record<string, unknown>) => idp.mint({ ...c, sub: undefined })],
    ['a sub with control characters', async (c: Record<string, unknown>) => idp.mint({ ...c, sub: 'carol\r\nadmin' })],
  ])('refuses an ID token with %s: back to the redirect with error=invalid_id_token, no code', async (_what, craft) => {
    const { w, claims, callback } = await start();
    idp.nextIdToken = await craft(claims());
    const location = await callback();
    expectError(location, 'invalid_id_token');
    expect(w.lines.some((l) => l.msg === 'OIDC sign-in failed' && l.error === 'invalid_id_token')).toBe(true);
  });

  it('accepts several audiences when azp names this client', async () => {
    const { claims, callback } = await start();
    idp.nextIdToken = await idp.mint(claims({ aud: ['portico', 'other'], azp: 'portico' }));
    expect(await callback()).toMatch(/\?code=/);
  });

  it('refuses an answer naming another issuer (RFC 9207 iss)', async () => {
    const { claims, callback } = await start();
    idp.nextIdToken = await idp.mint(claims());
    expectError(await callback({ iss: 'https://evil.example' }), 'invalid_response');
    expect(idp.tokenRequests).toHaveLength(0);
  });

  it('requires iss on the answer when the provider says it always sends one', async () => {
    idp.discovery = { authorization_response_iss_parameter_supported: true };
    const without = await start();
    idp.nextIdToken = await idp.mint(without.claims());
    expectError(await without.callback({ iss: undefined }), 'invalid_response');
    const withIss = await start();
    idp.nextIdToken = await idp.mint(withIss.claims());
    expect(await withIss.callback()).toMatch(/\?code=/);
  });

  it('passes known provider errors on by name and never reflects what the request carried', async () => {
    const a = await start();
    expectError(await a.callback({ error: 'access_denied', error_description: 'User said no', code: '' }), 'access_denied');
    const b = await start();
    expectError(await b.callback({ error: '<script>alert(1)</script>\r\nSet-Cookie: x=1', error_description: '\r\nLocation: https://evil.example' }), 'idp_error');
    const c = await start();
    expectError(await c.callback({ code: '' }), 'invalid_response');
    expect(idp.tokenRequests).toHaveLength(0);
  });

  it('refuses unknown, malformed and missing state with 400 (there is nowhere safe to redirect to)', async () => {
    const { w } = await start();
    for (const state of [undefined, '', 'x', 'A'.repeat(43), '../../etc/passwd', 'a\r\nb']) {
      const e = await rejection(w.auth.oidcCallback({ state, code: 'c' }, ctx));
      expect(e).toMatchObject({ code: 'BAD_REQUEST', status: 400, details: { parameter: 'state' } });
    }
  });

  it('reports a failed token exchange without detail and consumes the state', async () => {
    const { callback } = await start();
    idp.tokenResponse = () => ({ status: 400, body: { error: 'invalid_grant', error_description: 'code expired' } });
    expectError(await callback(), 'token_exchange_failed');
    expect(await rejection(callback())).toMatchObject({ status: 400 });

    const second = await start();
    idp.tokenResponse = () => ({ status: 200, body: { access_token: 'x', token_type: 'Bearer' } });
    expectError(await second.callback(), 'token_exchange_failed');
  });

  it('uses client_secret_post when that is all discovery offers', async () => {
    idp.discovery = { token_endpoint_auth_methods_supported: ['client_secret_post'] };
    const { claims, callback } = await start();
    idp.nextIdToken = await idp.mint(claims());
    expect(await callback()).toMatch(/\?code=/);
    const [request] = idp.tokenRequests;
    expect(request.authorization).toBeUndefined();
    expect(request.form.get('client_id')).toBe('portico');
    expect(request.form.get('client_secret')).toBe(SECRET);
  });

  it('reads the client secret from the cluster Secret portico-oidc (<name>-client-secret), at each sign-in', async () => {
    const { w, claims, callback } = await start({ secret: null });
    await w.cluster.create(resources.secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'portico-oidc', namespace: 'portico-test' },
      data: { 'corp-client-secret': Buffer.from('from-the-cluster\n').toString('base64') },
    });
    idp.nextIdToken = await idp.mint(claims());
    expect(await callback()).toMatch(/\?code=/);
    expect(idp.tokenRequests[0].authorization).toBe(`Basic ${Buffer.from('portico:from-the-cluster').toString('base64')}`);
  });

  it('acts as a public client (PKCE alone) when no secret is configured anywhere', async () => {
    const { claims, callback } = await start({ secret: null });
    idp.nextIdToken = await idp.mint(claims());
    expect(await callback()).toMatch(/\?code=/);
    const [request] = idp.tokenRequests;
    expect(request.authorization).toBeUndefined();
    expect(request.form.get('client_id')).toBe('portico');
    expect(request.form.has('client_secret')).toBe(false);
  });

  it('takes groups from UserInfo when the ID token has none, but only for the same subject', async () => {
    const ok = await start();
    idp.nextIdToken = await idp.mint(ok.claims({ groups: undefined, email: undefined }));
    idp.userinfo = { sub: 'carol', email: 'carol@corp.example', groups: ['from-userinfo'] };
    const location = await ok.callback();
    const session = await ok.w.auth.tokenExchange({ code: queryOf(location).code }, ctx);
    expect(session.user).toMatchObject({ email: 'carol@corp.example', groups: ['from-userinfo'] });

    const other = await start();
    idp.nextIdToken = await idp.mint(other.claims({ groups: undefined }));
    idp.userinfo = { sub: 'mallory', groups: ['admins'] };
    expectError(await other.callback(), 'userinfo_failed');
  });

  it('reads groups from a nested claim and keeps only usable group names', async () => {
    const { w, claims, callback } = await start({ env: { PORTICO_OIDC_GROUPS_CLAIM: 'realm_access.roles' } });
    idp.nextIdToken = await idp.mint(claims({ groups: undefined, realm_access: { roles: ['ops', 42, 'ops', '', 'bad\nname', { x: 1 }, 'devs'] } }));
    const session = await w.auth.tokenExchange({ code: queryOf(await callback()).code }, ctx);
    expect(session.user.groups).toEqual(['ops', 'devs']);
  });

  it('lets a pending sign-in expire after 5 minutes and a one-time code after 30 seconds', async () => {
    const now = fakeClock(Date.now());
    const late = await start({ now });
    now.advance(5 * 60 * 1000 + 1);
    expect(await rejection(late.callback())).toMatchObject({ code: 'BAD_REQUEST' });

    const slow = await start({ now });
    idp.nextIdToken = await idp.mint(slow.claims());
    const code = queryOf(await slow.callback()).code;
    now.advance(30_001);
    expect(await rejection(slow.w.auth.tokenExchange({ code }, ctx))).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('caches discovery, answers 503 while the provider is down and recovers without a restart', async () => {
    const { w } = await start();
    await w.auth.oidcLogin({}, ctx);
    await w.auth.oidcLogin({}, ctx);
    expect(idp.requests.filter((r) => r === 'GET /.well-known/openid-configuration')).toHaveLength(1);

    const fresh = await oidcWorld({ issuer: idp.issuer, clientSecret: SECRET });
    idp.down = true;
    expect(await rejection(fresh.auth.oidcLogin({}, ctx))).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, retryAfter: 5 });
    idp.down = false;
    expect(new URL(await fresh.auth.oidcLogin({}, ctx)).pathname).toBe('/authorize');
  });

  it('refuses a discovery document for another issuer or with insecure endpoints', async () => {
    idp.discovery = { issuer: 'https://evil.example' };
    const a = await oidcWorld({ issuer: idp.issuer, clientSecret: SECRET });
    expect(await rejection(a.auth.oidcLogin({}, ctx))).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    idp.discovery = { authorization_endpoint: 'javascript:alert(1)' };
    const b = await oidcWorld({ issuer: idp.issuer, clientSecret: SECRET });
    expect(await rejection(b.auth.oidcLogin({}, ctx))).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});
