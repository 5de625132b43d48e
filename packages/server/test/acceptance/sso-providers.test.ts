import { SsoProviderDetail, SsoProviderList, SsoProviders } from '@portico/api';
import { createMemoryKeyValue, resources, type KeyValue, type Operation, type OperationHook } from '@portico/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAtProvider, startLoopbackProvider, type LoopbackProvider } from '../../../core/test/oidc/loopback-provider.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { clusterModes, startPorticoServer, type PorticoServer } from '../support/cluster-modes.js';
import { capturedLogger } from '../support/captured-logger.js';

// Issue 38, acceptance 4: a provider added, used, changed and removed through the API on two replicas of one
// cluster, with no restart; its client secret in no answer and no log line.
const PUBLIC_URL = 'http://portico.test';
const CALLBACK = `${PUBLIC_URL}/api/v1/auth/oidc/callback`;
const PROVIDERS = '/api/v1/settings/sso/providers';
/** Portico's namespace (PORTICO_NAMESPACE's default), where providers live. */
const NS = 'portico';

describe.each(clusterModes)('sign-in providers managed at run time, two replicas (%s cluster)', (mode) => {
  let idp: LoopbackProvider;
  let kv: KeyValue;
  let a: PorticoServer;
  let b: PorticoServer;
  const { logger, lines: logLines } = capturedLogger();
  const answers: string[] = [];
  const operations: Operation[] = [];

  beforeAll(async () => {
    idp = await startLoopbackProvider({ redirectUris: [CALLBACK], users: { alice: { email: 'alice@example.com', name: 'Alice', groups: ['team-a'] } } });
    // One store for both replicas, as Redis is in production: a sign-in may start on one and end on the other.
    kv = createMemoryKeyValue();
    const hooks: OperationHook[] = [
      (operation, run) => {
        operations.push(operation);
        return run();
      },
    ];
    a = await startPorticoServer({ mode, kv, logger, hooks });
    b = await startPorticoServer({ mode, kv, logger, hooks, join: a, adminPassword: a.adminPassword });
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await kv?.close();
    await idp?.close();
  });

  /** Every answer is kept, to look for the secret in all of them at the end. */
  async function call(server: PorticoServer, method: string, path: string, body?: unknown, token: string | null = server.adminToken) {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'manual' });
    const text = await res.text();
    const headerLines: string[] = [];
    res.headers.forEach((value, name) => headerLines.push(`${name}: ${value}`));
    answers.push(`${method} ${path} ${res.status} ${headerLines.join('\n')} ${text}`);
    return { status: res.status, body: text ? JSON.parse(text) : undefined, location: res.headers.get('location') ?? '' };
  }
  const formA = async (server: PorticoServer) => SsoProviderList.parse((await call(server, 'GET', PROVIDERS, undefined, null)).body);
  const formB = async (server: PorticoServer) => SsoProviders.parse((await call(server, 'GET', '/api/v1/auth/oidc/providers', undefined, null)).body);

  /** Login on `start`, the provider's pages, the callback on `finish` (behind one public address), the code exchanged there. */
  async function signIn(start: PorticoServer, finish: PorticoServer, provider: string) {
    const login = await call(start, 'GET', `/api/v1/auth/oidc/login?provider=${provider}&redirect=/home`, undefined, null);
    expect(login.status).toBe(302);
    const back = new URL(await signInAtProvider(login.location, 'alice', CALLBACK));
    const callback = await call(finish, 'GET', `${back.pathname}${back.search}`, undefined, null);
    const code = new URL(callback.location, PUBLIC_URL).searchParams.get('code');
    if (!code) return { callback, session: undefined };
    const exchanged = await call(finish, 'POST', '/api/v1/auth/token-exchange', { code }, null);
    return { callback, session: exchanged.body as { token: string; user: { id: string } } };
  }

  const corp = () => ({
    name: 'corp',
    displayName: 'Corp SSO',
    issuerURL: idp.issuer,
    clientID: idp.clientId,
    clientSecret: idp.clientSecret,
    redirectURL: CALLBACK,
    scopes: ['openid', 'profile', 'email', 'groups'],
  });
  let aliceToken = '';

  it('a provider added on one replica is listed on both forms on both, without its secret, and a browser signs in through it', async () => {
    expect(await formA(b)).toEqual([]);
    const created = await call(a, 'POST', PROVIDERS, corp());
    expect(created.status).toBe(201);
    const listed = {
      name: 'corp', displayName: 'Corp SSO', loginUrl: '/api/v1/auth/oidc/login?provider=corp', issuerURL: idp.issuer,
      clientID: idp.clientId, redirectURL: CALLBACK, scopes: ['openid', 'profile', 'email', 'groups'], tokenEndpointAuthMethod: 'client_secret_basic',
    };
    expect(SsoProviderDetail.strict().parse(created.body)).toEqual(listed);
    // Read back at once on the replica that wrote it; within seconds on the other, with no restart.
    expect(await formA(a)).toEqual([listed]);
    await eventually(() => formA(b), (list) => list.length === 1, 'replica b to list the provider');
    for (const server of [a, b]) {
      expect((await formA(server)).map((p) => Object.keys(p).sort())).toEqual([Object.keys(listed).sort()]);
      expect(await formB(server)).toEqual({ providers: ['corp'], options: [{ name: 'corp', displayName: 'Corp SSO', loginUrl: '/api/v1/auth/oidc/login?provider=corp' }], localLoginEnabled: true });
    }
    expect((await call(b, 'GET', `${PROVIDERS}/corp`)).body).toEqual(listed);

    const { callback, session } = await signIn(b, a, 'corp');
    expect(callback.location).toMatch(/^\/home\?code=/);
    expect(session?.user.id).toBe('oidc:corp:alice');
    aliceToken = session!.token;
    expect((await call(b, 'GET', '/api/v1/account', undefined, aliceToken)).body).toMatchObject({ userID: 'oidc:corp:alice', groups: ['team-a'] });
  });

  it('an update on the other replica applies on both; an empty clientSecret keeps the stored one, a wrong one is used as given', async () => {
    const renamed = await call(b, 'PUT', `${PROVIDERS}/corp`, { ...corp(), name: undefined, displayName: 'Corp (new)', clientSecret: '' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'corp', displayName: 'Corp (new)' });
    await eventually(() => formA(a), (list) => list[0]?.displayName === 'Corp (new)', 'replica a to show the new display name');
    expect((await signIn(a, b, 'corp')).session?.user.id).toBe('oidc:corp:alice');

    expect((await call(a, 'PUT', `${PROVIDERS}/corp`, { ...corp(), clientSecret: 'not-the-secret' })).status).toBe(200);
    await eventually(async () => (await signIn(b, b, 'corp')).callback.location, (to) => to.includes('error=token_exchange_failed'), 'the wrong secret to be used on replica b');
    expect((await call(a, 'PUT', `${PROVIDERS}/corp`, corp())).status).toBe(200);
    await eventually(async () => (await signIn(b, a, 'corp')).session?.user.id, (id) => id === 'oidc:corp:alice', 'the right secret again');
  });

  it('switching to a public client removes the stored secret from the cluster', async () => {
    const secretOf = async () => (await a.kubectl.get(resources.secret, 'portico-sso-corp', NS))?.data ?? {};
    expect(Object.keys(await secretOf()).sort()).toEqual(['clientID', 'clientSecret']);
    const publicClient = await call(b, 'PUT', `${PROVIDERS}/corp`, { ...corp(), clientSecret: undefined, tokenEndpointAuthMethod: 'none' });
    expect(publicClient.body).toMatchObject({ tokenEndpointAuthMethod: 'none' });
    expect(Object.keys(await secretOf())).toEqual(['clientID']);
    // Back to a confidential client: with no secret stored, one must be given.
    expect((await call(b, 'PUT', `${PROVIDERS}/corp`, { ...corp(), clientSecret: '' })).body).toMatchObject({ code: 'VALIDATION_FAILED', details: { fields: { clientSecret: expect.any(String) } } });
    expect((await call(b, 'PUT', `${PROVIDERS}/corp`, corp())).status).toBe(200);
  });

  it('removing it ends the sign-ins in progress with it on every replica, not the sessions it made', async () => {
    const started = await call(a, 'GET', '/api/v1/auth/oidc/login?provider=corp&redirect=/home', undefined, null);
    const back = new URL(await signInAtProvider(started.location, 'alice', CALLBACK));
    // Another sign-in got as far as its one-time code.
    const nearlyDone = await call(a, 'GET', '/api/v1/auth/oidc/login?provider=corp&redirect=/home', undefined, null);
    const returned = new URL(await signInAtProvider(nearlyDone.location, 'alice', CALLBACK));
    const code = new URL((await call(b, 'GET', `${returned.pathname}${returned.search}`, undefined, null)).location, PUBLIC_URL).searchParams.get('code');
    expect(code).toBeTruthy();

    expect((await call(b, 'DELETE', `${PROVIDERS}/corp`)).status).toBe(204);
    expect(await formA(b)).toEqual([]);
    await eventually(() => formA(a), (list) => list.length === 0, 'replica a to drop the provider');
    expect(await formB(a)).toEqual({ providers: [], options: [], localLoginEnabled: true });

    const late = await call(a, 'GET', `${back.pathname}${back.search}`, undefined, null);
    expect(late.status).toBe(400);
    expect(late.body).toMatchObject({ message: 'invalid or expired sign-in state' });
    // No provider is left: the code is refused as the contract says for a deployment without one.
    expect((await call(a, 'POST', '/api/v1/auth/token-exchange', { code }, null)).status).toBe(400);
    expect((await call(b, 'GET', '/api/v1/auth/oidc/login?provider=corp', undefined, null)).status).toBe(404);
    expect((await call(a, 'GET', `${PROVIDERS}/corp`)).status).toBe(404);
    expect((await call(a, 'GET', '/api/v1/account', undefined, aliceToken)).status).toBe(200);
    expect(await a.kubectl.get(resources.secret, 'portico-sso-corp', NS)).toBeUndefined();
  });

  it('a provider written with kubectl (GitOps) is offered on both replicas, and one re-created under the old name does not finish an old sign-in', async () => {
    const labels = { 'portico.dev/sso-provider': 'true' };
    await a.apply([
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'portico-sso-gitops', namespace: NS, labels }, data: { clientID: Buffer.from(idp.clientId).toString('base64'), clientSecret: Buffer.from(idp.clientSecret).toString('base64') } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'portico-sso-gitops', namespace: NS, labels }, data: { issuerURL: idp.issuer, redirectURL: CALLBACK, scopes: 'openid email' } },
    ]);
    for (const server of [a, b]) await eventually(() => formA(server), (list) => list.some((p) => p.name === 'gitops'), `replica ${server === a ? 'a' : 'b'} to offer the provider`);
    expect((await formA(a))[0]).toMatchObject({ name: 'gitops', displayName: 'gitops', scopes: ['openid', 'email'], tokenEndpointAuthMethod: 'client_secret_basic' });

    const pending = await call(a, 'GET', '/api/v1/auth/oidc/login?provider=gitops&redirect=/home', undefined, null);
    const back = new URL(await signInAtProvider(pending.location, 'alice', CALLBACK));
    const other = await call(a, 'GET', '/api/v1/auth/oidc/login?provider=gitops&redirect=/home', undefined, null);
    const otherBack = new URL(await signInAtProvider(other.location, 'alice', CALLBACK));
    const code = new URL((await call(a, 'GET', `${otherBack.pathname}${otherBack.search}`, undefined, null)).location, PUBLIC_URL).searchParams.get('code');
    await a.remove({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'portico-sso-gitops', namespace: NS } });
    await a.apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'portico-sso-gitops', namespace: NS, labels }, data: { issuerURL: idp.issuer, redirectURL: CALLBACK } });
    await eventually(() => formA(b), (list) => list.some((p) => p.name === 'gitops' && p.scopes.length === 4), 'replica b to see the new provider');
    expect((await call(b, 'GET', `${back.pathname}${back.search}`, undefined, null)).status).toBe(400);
    expect((await call(b, 'POST', '/api/v1/auth/token-exchange', { code }, null)).body).toMatchObject({ code: 'UNAUTHORIZED', message: 'invalid or expired code' });
    expect((await call(b, 'DELETE', `${PROVIDERS}/gitops`)).status).toBe(204);
  });

  it('records each change as an operation whose clientSecret is a secret field, and the secret is in no answer and no log line', () => {
    const sso = operations.filter((o) => o.id.startsWith('ssoProviders.'));
    expect(sso.map((o) => `${o.id} ${o.name}`)).toEqual([
      'ssoProviders.create corp', 'ssoProviders.update corp', 'ssoProviders.update corp', 'ssoProviders.update corp',
      'ssoProviders.update corp', 'ssoProviders.update corp', 'ssoProviders.update corp', 'ssoProviders.delete corp', 'ssoProviders.delete gitops',
    ]);
    for (const o of sso) expect(o.secretFields).toEqual(o.id === 'ssoProviders.delete' ? [] : ['clientSecret']);
    expect(answers.length).toBeGreaterThan(30);
    expect(logLines.length).toBeGreaterThan(0);
    for (const text of [...answers, ...logLines]) {
      expect(text).not.toContain(idp.clientSecret);
      expect(text).not.toContain('not-the-secret');
    }
  });
});
