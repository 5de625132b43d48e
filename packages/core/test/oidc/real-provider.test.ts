import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeAuthorizer } from '../auth/fakes.js';
import { signInAtProvider, startLoopbackProvider, type LoopbackProvider } from './loopback-provider.js';
import { CALLBACK, ctx, oidcWorld, queryOf, rejection } from './world.js';

describe('OIDC sign-in against a real OpenID provider on loopback', () => {
  let idp: LoopbackProvider;

  beforeAll(async () => {
    idp = await startLoopbackProvider({
      redirectUris: [CALLBACK],
      users: {
        alice: { email: 'alice@example.com', name: 'Alice Liddell', groups: ['team-a', 'developers'] },
        admin: { email: 'mallory@example.com', name: 'Not The Admin', groups: [] },
      },
    });
  });
  afterAll(() => idp.close());

  const world = () => oidcWorld({ issuer: idp.issuer, clientSecret: idp.clientSecret, authz: fakeAuthorizer() });

  /** Login → provider pages → callback: the Location the callback answers. */
  async function signIn(w: Awaited<ReturnType<typeof world>>, user: string, redirect = '/catalog?view=mine') {
    const authUrl = await w.auth.oidcLogin({ provider: 'corp', redirect }, ctx);
    const back = await signInAtProvider(authUrl, user, CALLBACK);
    return { authUrl, back, location: await w.auth.oidcCallback(queryOf(back), ctx) };
  }

  it('lists the provider as a sign-in option', async () => {
    const w = await world();
    expect(w.auth.ssoProviders()).toEqual({
      providers: ['corp'],
      options: [{ name: 'corp', displayName: 'Corporate sign-in', loginUrl: '/api/v1/auth/oidc/login?provider=corp' }],
      localLoginEnabled: true,
    });
  });

  it('signs a user in: code flow with PKCE, one-time code, a Portico token carrying the provider\'s groups', async () => {
    const w = await world();
    const { authUrl, back, location } = await signIn(w, 'alice');

    const auth = new URL(authUrl);
    expect(`${auth.origin}${auth.pathname}`).toBe(`${idp.issuer}/auth`);
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'portico',
      redirect_uri: CALLBACK,
      scope: 'openid profile email groups',
      code_challenge_method: 'S256',
    });
    for (const p of ['state', 'nonce', 'code_challenge']) expect(auth.searchParams.get(p)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The provider came back with its issuer (RFC 9207) and our state.
    expect(queryOf(back)).toMatchObject({ state: auth.searchParams.get('state'), iss: idp.issuer });
    expect(idp.requests).toContain('POST /token');
    // This provider keeps profile claims and groups out of ID tokens: they came from its UserInfo endpoint.
    expect(idp.requests).toContain('GET /me');

    expect(location).toMatch(/^\/catalog\?view=mine&code=[A-Za-z0-9_-]{43}$/);
    const session = await w.auth.tokenExchange({ code: queryOf(location).code }, ctx);
    expect(session.user).toEqual({
      id: 'oidc:corp:alice',
      email: 'alice@example.com',
      displayName: 'Alice Liddell',
      groups: ['team-a', 'developers'],
      projects: [],
      roles: {},
      casbinRoles: [],
    });
    const claims = decodeJwt(session.token);
    expect(claims).toMatchObject({ sub: 'oidc:corp:alice', groups: ['team-a', 'developers'], iss: 'portico', aud: 'portico' });
    expect(claims.local).toBeUndefined();
    const actor = await w.auth.verifyToken(session.token);
    expect(actor).toMatchObject({ id: 'oidc:corp:alice', subject: 'user:oidc:corp:alice', local: false, groups: ['team-a', 'developers'] });
  });

  it('refuses a replayed one-time code and a replayed state', async () => {
    const w = await world();
    const { back, location } = await signIn(w, 'alice');
    const code = queryOf(location).code;
    await w.auth.tokenExchange({ code }, ctx);
    expect(await rejection(w.auth.tokenExchange({ code }, ctx))).toMatchObject({ code: 'UNAUTHORIZED', status: 401, message: 'invalid or expired code' });
    // The same callback again (a captured URL, a double submit): the state was used up by the first one.
    expect(await rejection(w.auth.oidcCallback(queryOf(back), ctx))).toMatchObject({ code: 'BAD_REQUEST', status: 400, message: 'invalid or expired sign-in state' });
  });

  it('keeps identity-provider users apart from local ones: a provider user called "admin" is not the local admin', async () => {
    const w = await world();
    const { location } = await signIn(w, 'admin');
    const session = await w.auth.tokenExchange({ code: queryOf(location).code }, ctx);
    expect(session.user).toMatchObject({ id: 'oidc:corp:admin', casbinRoles: [] });
    const actor = await w.auth.verifyToken(session.token);
    expect(actor.subject).toBe('user:oidc:corp:admin');

    const local = await w.auth.localLogin({ username: 'admin', password: 'admin-password-123' }, ctx);
    expect(local.user).toMatchObject({ id: 'admin', casbinRoles: ['role:serveradmin'] });
  });

  it('reads group changes at the next sign-in', async () => {
    const w = await world();
    idp.users.set('bob', { email: 'bob@example.com', name: 'Bob', groups: ['viewers'] });
    const first = await signIn(w, 'bob');
    expect((await w.auth.tokenExchange({ code: queryOf(first.location).code }, ctx)).user.groups).toEqual(['viewers']);
    idp.users.set('bob', { email: 'bob@example.com', name: 'Bob', groups: ['viewers', 'platform'] });
    const second = await signIn(w, 'bob');
    expect((await w.auth.tokenExchange({ code: queryOf(second.location).code }, ctx)).user.groups).toEqual(['viewers', 'platform']);
  });

  it('refuses an off-site redirect before anything is stored or sent to the provider', async () => {
    const w = await world();
    const before = idp.requests.length;
    const e = await rejection(w.auth.oidcLogin({ provider: 'corp', redirect: 'https://evil.example/steal' }, ctx));
    expect(e).toMatchObject({ code: 'BAD_REQUEST', status: 400, details: { parameter: 'redirect' } });
    expect(idp.requests.length).toBe(before);
  });

  it('answers 404 for an unknown provider and picks the only one when none is named', async () => {
    const w = await world();
    expect(await rejection(w.auth.oidcLogin({ provider: 'other' }, ctx))).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const url = new URL(await w.auth.oidcLogin({}, ctx));
    expect(url.searchParams.get('client_id')).toBe('portico');
  });
});
