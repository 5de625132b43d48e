import { SsoProviderList } from '@portico/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAtProvider, startLoopbackProvider, type LoopbackProvider } from '../../../core/test/oidc/loopback-provider.js';
import { startPorticoStack, type PorticoStack } from '../hostile/stack.js';

// Portico as the browser and the provider know it (behind a proxy); the test replays the callback on the real port.
const PUBLIC_URL = 'http://portico.test';
const CALLBACK = `${PUBLIC_URL}/api/v1/auth/oidc/callback`;

describe('OIDC sign-in over HTTP against a real OpenID provider', () => {
  let idp: LoopbackProvider;
  let stack: PorticoStack;
  let admin: Record<string, string>;

  beforeAll(async () => {
    idp = await startLoopbackProvider({
      redirectUris: [CALLBACK],
      users: {
        alice: { email: 'alice@example.com', name: 'Alice', groups: ['team-a'] },
        paula: { email: 'paula@example.com', name: 'Paula', groups: ['platform-admins'] },
        admin: { email: 'impostor@example.com', name: 'Impostor', groups: ['team-x'] },
      },
    });
    stack = await startPorticoStack({
      env: {
        PORTICO_OIDC_NAME: 'corp',
        PORTICO_OIDC_DISPLAY_NAME: 'Corp SSO',
        PORTICO_OIDC_ISSUER: idp.issuer,
        PORTICO_OIDC_CLIENT_ID: idp.clientId,
        PORTICO_OIDC_CLIENT_SECRET: idp.clientSecret,
        PORTICO_OIDC_SERVER_ADMIN_GROUPS: 'platform-admins',
        PORTICO_PUBLIC_URL: PUBLIC_URL,
        // More sign-ins from 127.0.0.1 than the per-IP defaults allow a minute; limits are tested elsewhere.
        PORTICO_RATE_LIMITS: '{"oidcCallback":100,"login":100}',
      },
    });
    admin = { authorization: `Bearer ${await stack.adminToken()}` };
  });
  afterAll(async () => {
    await stack?.close();
    await idp?.close();
  });

  /** The whole browser round trip: Portico login → provider pages → Portico callback → frontend with ?code=. */
  async function signIn(user: string, redirect = '/app/home') {
    const login = await fetch(`${stack.url}/api/v1/auth/oidc/login?provider=corp&redirect=${encodeURIComponent(redirect)}`, { redirect: 'manual' });
    expect(login.status).toBe(302);
    const atProvider = login.headers.get('location')!;
    const back = new URL(await signInAtProvider(atProvider, user, CALLBACK));
    const callbackUrl = `${stack.url}${back.pathname}${back.search}`;
    const callback = await fetch(callbackUrl, { redirect: 'manual' });
    return { atProvider, callbackUrl, callback, location: callback.headers.get('location') ?? '' };
  }

  async function exchange(location: string) {
    const code = new URL(location, PUBLIC_URL).searchParams.get('code');
    return fetch(`${stack.url}/api/v1/auth/token-exchange`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
  }

  it('offers the provider on both forms of the sign-in options route: Form B an object, Form A an array', async () => {
    expect(await (await fetch(`${stack.url}/api/v1/auth/oidc/providers`)).json()).toEqual({
      providers: ['corp'],
      options: [{ name: 'corp', displayName: 'Corp SSO', loginUrl: '/api/v1/auth/oidc/login?provider=corp' }],
      localLoginEnabled: true,
    });
    const formA = await (await fetch(`${stack.url}/api/v1/settings/sso/providers`)).json();
    expect(SsoProviderList.parse(formA)).toEqual([
      {
        name: 'corp',
        displayName: 'Corp SSO',
        loginUrl: '/api/v1/auth/oidc/login?provider=corp',
        issuerURL: idp.issuer,
        clientID: idp.clientId,
        redirectURL: CALLBACK,
        scopes: expect.arrayContaining(['openid']),
        tokenEndpointAuthMethod: 'client_secret_basic',
      },
    ]);
    expect(JSON.stringify(formA)).not.toContain(idp.clientSecret);
  });

  it('signs a user in; bound by group to a project role, the user can then get the project', async () => {
    const { atProvider, callback, location } = await signIn('alice');
    expect(atProvider.startsWith(`${idp.issuer}/auth?`)).toBe(true);
    expect(callback.status).toBe(302);
    expect(location).toMatch(/^\/app\/home\?code=[A-Za-z0-9_-]{43}$/);

    const exchanged = await exchange(location);
    expect(exchanged.status).toBe(200);
    expect(exchanged.headers.get('set-cookie')).toMatch(/^portico_session=[^;]+; HttpOnly; Path=\/api; SameSite=Strict/);
    const session = await exchanged.json();
    expect(session.user).toMatchObject({ id: 'oidc:corp:alice', groups: ['team-a'], projects: [], casbinRoles: [] });
    const alice = { authorization: `Bearer ${session.token}` };

    const before = await fetch(`${stack.url}/api/v1/projects/alpha`, { headers: alice });
    expect([403, 404]).toContain(before.status);
    expect((await (await fetch(`${stack.url}/api/v1/projects`, { headers: alice })).json()).items).toEqual([]);

    const bound = await fetch(`${stack.url}/api/v1/projects/alpha/roles/viewer/groups/team-a`, { method: 'POST', headers: admin });
    expect(bound.status).toBe(201);

    // Same token, no new sign-in: roles are evaluated per request from current policy.
    const after = await fetch(`${stack.url}/api/v1/projects/alpha`, { headers: alice });
    expect(after.status).toBe(200);
    expect(await after.json()).toMatchObject({ name: 'alpha' });
    const account = await (await fetch(`${stack.url}/api/v1/account`, { headers: alice })).json();
    expect(account).toMatchObject({ userID: 'oidc:corp:alice', groups: ['team-a'], projects: ['alpha'], roles: { alpha: 'viewer' }, serverAdmin: false });
    expect((await fetch(`${stack.url}/api/v1/projects/beta`, { headers: alice })).status).not.toBe(200);

    const unbound = await fetch(`${stack.url}/api/v1/projects/alpha/roles/viewer/groups/team-a`, { method: 'DELETE', headers: admin });
    expect(unbound.status).toBe(204);
    expect((await fetch(`${stack.url}/api/v1/projects/alpha`, { headers: alice })).status).not.toBe(200);
  });

  it('refuses a replayed one-time code and a replayed callback', async () => {
    const { callbackUrl, location } = await signIn('alice');
    expect((await exchange(location)).status).toBe(200);
    const again = await exchange(location);
    expect(again.status).toBe(401);
    expect(again.headers.get('set-cookie')).toBeNull();
    expect(await again.json()).toMatchObject({ code: 'UNAUTHORIZED', message: 'invalid or expired code' });

    const replay = await fetch(callbackUrl, { redirect: 'manual' });
    expect(replay.status).toBe(400);
    expect(replay.headers.get('location')).toBeNull();
    expect(await replay.json()).toMatchObject({ code: 'BAD_REQUEST', message: 'invalid or expired sign-in state' });
  });

  it('makes members of serverAdminGroups Server Admins, and a provider user called "admin" nothing special', async () => {
    const paula = await (await exchange((await signIn('paula')).location)).json();
    expect(paula.user.casbinRoles).toEqual(['role:serveradmin']);
    expect((await fetch(`${stack.url}/api/v1/accounts`, { headers: { authorization: `Bearer ${paula.token}` } })).status).toBe(200);

    const impostor = await (await exchange((await signIn('admin')).location)).json();
    expect(impostor.user).toMatchObject({ id: 'oidc:corp:admin', casbinRoles: [] });
    const refused = await fetch(`${stack.url}/api/v1/accounts`, { headers: { authorization: `Bearer ${impostor.token}` } });
    expect(refused.status).toBe(403);
  });

  it('refuses an off-site redirect at login with 400 and sends nobody to the provider', async () => {
    const before = idp.requests.length;
    for (const redirect of ['https://evil.example/', '//evil.example', '/\\evil.example', '/x\r\nSet-Cookie: a=b']) {
      const res = await fetch(`${stack.url}/api/v1/auth/oidc/login?provider=corp&redirect=${encodeURIComponent(redirect)}`, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.json()).toMatchObject({ code: 'BAD_REQUEST', details: { parameter: 'redirect' } });
    }
    expect(idp.requests.length).toBe(before);
  });

  it('sends the CLI\'s loopback listener its code', async () => {
    const { location } = await signIn('alice', 'http://127.0.0.1:53682/callback');
    expect(location).toMatch(/^http:\/\/127\.0\.0\.1:53682\/callback\?code=[A-Za-z0-9_-]{43}$/);
    expect((await exchange(location)).status).toBe(200);
  });
});
