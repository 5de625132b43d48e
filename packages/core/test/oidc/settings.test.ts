import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOidcSettings, oidcServerAdmins } from '../../src/auth/oidc/index.js';
import { loadConfig } from '../../src/config.js';

const dir = mkdtempSync(path.join(tmpdir(), 'portico-oidc-settings-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};
const config = (env: Record<string, string> = {}) => loadConfig({ PORTICO_PROFILE: 'production', ...env });
const issuerEnv = { PORTICO_OIDC_ISSUER: 'https://login.example.com', PORTICO_OIDC_CLIENT_ID: 'portico', PORTICO_PUBLIC_URL: 'https://portico.example.com/' };

describe('OIDC provider settings', () => {
  it('configures nothing without a file or PORTICO_OIDC_ISSUER', () => {
    expect(loadOidcSettings({ config: config(), env: {} })).toEqual([]);
  });

  it('reads one provider from PORTICO_OIDC_* with the documented defaults', () => {
    const [p] = loadOidcSettings({ config: config(), env: issuerEnv });
    expect(p).toEqual({
      name: 'oidc',
      displayName: 'oidc',
      issuer: 'https://login.example.com',
      clientId: 'portico',
      clientSecret: { from: 'secret', secret: 'portico-oidc', key: 'oidc-client-secret' },
      tokenEndpointAuthMethod: undefined,
      scopes: ['openid', 'profile', 'email', 'groups'],
      groupsClaim: 'groups',
      serverAdminGroups: [],
      redirectUri: 'https://portico.example.com/api/v1/auth/oidc/callback',
      setting: 'PORTICO_OIDC_ISSUER',
    });
  });

  it('takes every PORTICO_OIDC_* variable into account', () => {
    const [p] = loadOidcSettings({
      config: config(),
      env: {
        ...issuerEnv,
        PORTICO_OIDC_NAME: 'okta',
        PORTICO_OIDC_DISPLAY_NAME: 'Okta',
        PORTICO_OIDC_CLIENT_SECRET_FILE: '/var/run/secrets/okta',
        PORTICO_OIDC_SCOPES: 'profile email',
        PORTICO_OIDC_GROUPS_CLAIM: 'roles',
        PORTICO_OIDC_SERVER_ADMIN_GROUPS: 'platform-admins, sre',
      },
    });
    expect(p).toMatchObject({
      name: 'okta',
      displayName: 'Okta',
      clientSecret: { from: 'file', path: '/var/run/secrets/okta' },
      scopes: ['openid', 'profile', 'email'],
      groupsClaim: 'roles',
      serverAdminGroups: ['platform-admins', 'sre'],
    });
    const [withSecret] = loadOidcSettings({ config: config(), env: { ...issuerEnv, PORTICO_OIDC_CLIENT_SECRET: 's3cret' } });
    expect(withSecret.clientSecret).toEqual({ from: 'value', value: 's3cret' });
  });

  it('reads providers from a YAML or JSON file, alongside the one from the environment', () => {
    const yaml = file(
      'providers.yaml',
      `providers:
  - name: dex
    displayName: Dex
    issuer: https://dex.example.com
    clientId: portico-dex
    clientSecretFile: /secrets/dex
    scopes: [openid, email]
    serverAdminGroups: [admins]
  - name: google
    issuer: https://accounts.google.com
    clientId: 123.apps.googleusercontent.com
    redirectUri: https://portico.example.com/custom/callback
`,
    );
    const providers = loadOidcSettings({ config: config({ PORTICO_OIDC_CONFIG: yaml }), env: issuerEnv });
    expect(providers.map((p) => p.name)).toEqual(['dex', 'google', 'oidc']);
    // Named in the 409 a change through the API gets: where the provider is defined.
    expect(providers.map((p) => p.setting)).toEqual(['PORTICO_OIDC_CONFIG', 'PORTICO_OIDC_CONFIG', 'PORTICO_OIDC_ISSUER']);
    expect(providers[0]).toMatchObject({ displayName: 'Dex', scopes: ['openid', 'email'], clientSecret: { from: 'file', path: '/secrets/dex' } });
    expect(providers[1]).toMatchObject({ clientSecret: { from: 'secret', key: 'google-client-secret' }, redirectUri: 'https://portico.example.com/custom/callback' });
    expect(oidcServerAdmins(providers)).toEqual(['group:admins']);

    const json = file('providers.json', JSON.stringify([{ name: 'a', issuer: 'https://a.example', clientId: 'x' }]));
    expect(loadOidcSettings({ config: config({ PORTICO_OIDC_CONFIG: json }), env: { PORTICO_PUBLIC_URL: 'https://p.example' } })).toHaveLength(1);
  });

  it('defaults the public URL to http://localhost:<port> in development only', () => {
    const dev = loadConfig({ PORTICO_PROFILE: 'development', SERVER_ADDRESS: ':9090' });
    const [p] = loadOidcSettings({ config: dev, env: { PORTICO_OIDC_ISSUER: 'https://login.example.com', PORTICO_OIDC_CLIENT_ID: 'c' } });
    expect(p.redirectUri).toBe('http://localhost:9090/api/v1/auth/oidc/callback');
    expect(() => loadOidcSettings({ config: config(), env: { PORTICO_OIDC_ISSUER: 'https://login.example.com', PORTICO_OIDC_CLIENT_ID: 'c' } })).toThrow(/PORTICO_PUBLIC_URL/);
  });

  it.each([
    ['a missing client id', { PORTICO_OIDC_CLIENT_ID: '' }, /PORTICO_OIDC_CLIENT_ID/],
    ['an issuer that is not a URL', { PORTICO_OIDC_ISSUER: 'login.example.com' }, /PORTICO_OIDC_ISSUER/],
    ['an issuer with credentials', { PORTICO_OIDC_ISSUER: 'https://u:p@login.example.com' }, /PORTICO_OIDC_ISSUER/],
    ['a bad provider name', { PORTICO_OIDC_NAME: 'My IdP' }, /PORTICO_OIDC_NAME/],
    ['secret and secret file together', { PORTICO_OIDC_CLIENT_SECRET: 'a', PORTICO_OIDC_CLIENT_SECRET_FILE: '/b' }, /PORTICO_OIDC_CLIENT_SECRET/],
    ['a bad public URL', { PORTICO_PUBLIC_URL: 'ftp://x' }, /PORTICO_PUBLIC_URL/],
  ])('stops start-up on %s, naming the variable', (_what, override, variable) => {
    expect(() => loadOidcSettings({ config: config(), env: { ...issuerEnv, ...override } })).toThrow(variable);
  });

  it.each([
    ['a missing file', path.join(dir, 'nope.yaml')],
    ['unparsable YAML', file('bad.yaml', 'providers: [unclosed')],
    ['an unknown field', file('unknown.yaml', 'providers:\n  - {name: a, issuer: "https://a.example", clientId: x, clientSecrett: y}')],
    ['a duplicate name', file('dup.yaml', 'providers:\n  - {name: a, issuer: "https://a.example", clientId: x}\n  - {name: a, issuer: "https://b.example", clientId: y}')],
  ])('stops start-up on %s in PORTICO_OIDC_CONFIG', (_what, p) => {
    expect(() => loadOidcSettings({ config: config({ PORTICO_OIDC_CONFIG: p }), env: { PORTICO_PUBLIC_URL: 'https://p.example' } })).toThrow(/PORTICO_OIDC_CONFIG/);
  });
});
