import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SsoProviderDetail, SsoProviderList } from '@portico/api';
import { resources } from '@portico/core';
import { describe, expect, it } from 'vitest';
import { apiAs, createUser } from './support/api-as.js';
import { clusterModes, useServer } from './support/cluster-modes.js';

// §11.6: what a Server Admin may write as a sign-in provider, and who may write at all. A refused request
// changes nothing: no provider is listed and no ConfigMap or Secret is written.
const PROVIDERS = '/api/v1/settings/sso/providers';
const NS = 'portico';

const valid = {
  name: 'dex',
  issuerURL: 'https://dex.example.com',
  clientID: 'portico',
  clientSecret: 'dex-client-secret-value',
  redirectURL: 'https://portico.example.com/api/v1/auth/oidc/callback',
  scopes: ['openid', 'email'],
};
const endpoints = { authorizationURL: 'https://dex.example.com/auth', tokenURL: 'https://dex.example.com/token', jwksURL: 'https://dex.example.com/keys' };

/** Each body, and the field its 400 names. */
const refused: Array<[string, Record<string, unknown>, string]> = [
  ['a name that is not a DNS label', { ...valid, name: 'Dex_1' }, 'name'],
  ['a name longer than 63 characters', { ...valid, name: 'd'.repeat(64) }, 'name'],
  ['an http issuer on the network', { ...valid, issuerURL: 'http://dex.example.com' }, 'issuerURL'],
  ['an issuer with credentials', { ...valid, issuerURL: 'https://user:pw@dex.example.com' }, 'issuerURL'],
  ['an issuer that is no URL', { ...valid, issuerURL: 'dex.example.com' }, 'issuerURL'],
  ['no clientID', { ...valid, clientID: undefined }, 'clientID'],
  ['no redirectURL', { ...valid, redirectURL: undefined }, 'redirectURL'],
  ['a javascript: redirectURL', { ...valid, redirectURL: 'javascript:alert(1)' }, 'redirectURL'],
  ['client_secret_basic without a secret', { ...valid, clientSecret: undefined }, 'clientSecret'],
  ['client_secret_basic with an empty secret', { ...valid, clientSecret: '' }, 'clientSecret'],
  ['a secret for a public client', { ...valid, tokenEndpointAuthMethod: 'none' }, 'clientSecret'],
  ['an auth method Portico does not manage', { ...valid, tokenEndpointAuthMethod: 'client_secret_jwt' }, 'tokenEndpointAuthMethod'],
  ['one endpoint without the other two', { ...valid, authorizationURL: endpoints.authorizationURL }, 'tokenURL'],
  ['two endpoints without the third', { ...valid, authorizationURL: endpoints.authorizationURL, tokenURL: endpoints.tokenURL }, 'jwksURL'],
  ['an http endpoint', { ...valid, ...endpoints, tokenURL: 'http://dex.example.com/token' }, 'tokenURL'],
  ['a scope with a space', { ...valid, scopes: ['openid email'] }, 'scopes.0'],
  ['scopes as a string', { ...valid, scopes: 'openid email' }, 'scopes'],
];

/** A provider of the environment: configured in the file PORTICO_OIDC_CONFIG names. */
const oidcConfig = join(mkdtempSync(join(tmpdir(), 'portico-sso-')), 'providers.yaml');
writeFileSync(oidcConfig, '- name: corp\n  issuer: https://login.example.com\n  clientId: corp-client\n  clientSecret: corp-env-secret\n');

describe.each(clusterModes)('sign-in provider rules (%s cluster)', (mode) => {
  const { tp, admin } = useServer(mode, { env: { PORTICO_OIDC_CONFIG: oidcConfig } });
  const stored = async () => ({
    listed: SsoProviderList.parse((await admin.get(PROVIDERS)).body).map((p) => p.name),
    configMaps: (await tp.kubectl.list(resources.configMap, { namespace: NS })).items.map((o) => o.metadata.name).filter((n) => n.startsWith('portico-sso-')),
    secrets: (await tp.kubectl.list(resources.secret, { namespace: NS })).items.map((o) => o.metadata.name).filter((n) => n.startsWith('portico-sso-')),
  });

  it.each(refused)('refuses %s with 400 naming the field, and stores nothing', async (_what, body, field) => {
    const before = await stored();
    const res = await admin.post(PROVIDERS, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', details: { fields: { [field]: expect.any(String) } } });
    expect(await stored()).toEqual(before);
  });

  it('takes what a console sends: empty optional fields, an http issuer on this machine, defaults for scopes and method', async () => {
    const res = await admin.post(PROVIDERS, { ...valid, name: 'local-dex', issuerURL: 'http://127.0.0.1:5556/dex', displayName: '', scopes: [], authorizationURL: '', tokenURL: null, jwksURL: '' });
    expect(res.status).toBe(201);
    expect(SsoProviderDetail.strict().parse(res.body)).toEqual({
      name: 'local-dex', displayName: 'local-dex', loginUrl: '/api/v1/auth/oidc/login?provider=local-dex', issuerURL: 'http://127.0.0.1:5556/dex',
      clientID: 'portico', redirectURL: valid.redirectURL, scopes: ['openid', 'profile', 'email', 'groups'], tokenEndpointAuthMethod: 'client_secret_basic',
    });
    const manual = await admin.post(PROVIDERS, { ...valid, name: 'manual', ...endpoints, scopes: ['email'] });
    expect(manual.body).toMatchObject({ ...endpoints, scopes: ['openid', 'email'] });
    expect((await admin.get(`${PROVIDERS}/manual`)).body).toEqual(manual.body);
    expect(SsoProviderList.parse((await admin.get(PROVIDERS)).body).find((p) => p.name === 'manual')).not.toHaveProperty('tokenURL');
    expect((await admin.del(`${PROVIDERS}/local-dex`)).status).toBe(204);
    expect((await admin.del(`${PROVIDERS}/manual`)).status).toBe(204);
  });

  it('answers 409 for a name that is taken, and changes nothing', async () => {
    expect((await admin.post(PROVIDERS, valid)).status).toBe(201);
    const again = await admin.post(PROVIDERS, { ...valid, clientID: 'someone-else', clientSecret: 'other-secret' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'CONFLICT', details: { name: 'dex' } });
    expect((await admin.get(`${PROVIDERS}/dex`)).body).toMatchObject({ clientID: 'portico' });
    const secret = await tp.kubectl.get(resources.secret, 'portico-sso-dex', NS);
    expect(Buffer.from(secret!.data!.clientSecret!, 'base64').toString()).toBe(valid.clientSecret);
    expect((await admin.del(`${PROVIDERS}/dex`)).status).toBe(204);
  });

  it('lists a provider of the environment and refuses to change it through the API with 409 naming the setting', async () => {
    expect((await admin.get(`${PROVIDERS}/corp`)).body).toMatchObject({ name: 'corp', issuerURL: 'https://login.example.com', clientID: 'corp-client' });
    const attempts = [
      await admin.post(PROVIDERS, { ...valid, name: 'corp' }),
      await admin.put(`${PROVIDERS}/corp`, { ...valid, name: undefined }),
      await admin.del(`${PROVIDERS}/corp`),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'CONFLICT', details: { name: 'corp', setting: 'PORTICO_OIDC_CONFIG' } });
      expect(res.body.message).toContain('PORTICO_OIDC_CONFIG');
    }
    expect(SsoProviderList.parse((await admin.get(PROVIDERS)).body)).toEqual([expect.objectContaining({ name: 'corp', clientID: 'corp-client' })]);
    expect(JSON.stringify((await admin.get(PROVIDERS)).body)).not.toContain('corp-env-secret');
  });

  it('refuses a PUT that renames, and 404s a provider that does not exist', async () => {
    expect((await admin.post(PROVIDERS, { ...valid, name: 'keep' })).status).toBe(201);
    const renamed = await admin.put(`${PROVIDERS}/keep`, { ...valid, name: 'other' });
    expect(renamed.status).toBe(400);
    expect(renamed.body.details.fields).toHaveProperty('name');
    expect((await admin.get(`${PROVIDERS}/keep`)).body).toMatchObject({ name: 'keep' });
    expect((await admin.del(`${PROVIDERS}/keep`)).status).toBe(204);
    for (const res of [await admin.get(`${PROVIDERS}/nope`), await admin.put(`${PROVIDERS}/nope`, { ...valid, name: undefined }), await admin.del(`${PROVIDERS}/nope`)]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('is the Server Admin\'s: another user gets 403 and changes nothing, no token 401; the list stays public', async () => {
    expect((await admin.post(PROVIDERS, { ...valid, name: 'owned' })).status).toBe(201);
    const user = await createUser(tp, 'sso-user');
    const before = await stored();
    for (const res of [
      await user.get(`${PROVIDERS}/owned`),
      await user.post(PROVIDERS, { ...valid, name: 'mine' }),
      await user.put(`${PROVIDERS}/owned`, { ...valid, issuerURL: 'https://evil.example.com' }),
      await user.del(`${PROVIDERS}/owned`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'FORBIDDEN' });
    }
    const anonymous = apiAs(tp.url, '');
    for (const res of [await anonymous.post(PROVIDERS, { ...valid, name: 'mine' }), await anonymous.del(`${PROVIDERS}/owned`)]) expect(res.status).toBe(401);
    expect(await stored()).toEqual(before);
    expect((await admin.get(`${PROVIDERS}/owned`)).body).toMatchObject({ issuerURL: valid.issuerURL });
    expect((await fetch(`${tp.url}${PROVIDERS}`)).status).toBe(200);
    expect((await admin.del(`${PROVIDERS}/owned`)).status).toBe(204);
  });
});
