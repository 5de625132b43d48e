import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedCluster } from '../../src/adapters/index.js';
import { createSsoProviderRegistry, type SsoProviderRegistry } from '../../src/auth/sso/index.js';
import { createLogger } from '../../src/logger.js';
import { resources, type Cluster, type KubeObject } from '../../src/ports/cluster.js';
import { until } from '../support/eventually.js';

// What a replica makes of provider ConfigMaps and Secrets written by hand (kubectl, GitOps): the API's rules,
// no looser; an environment provider's name is not taken over; a provider without its client ID is not offered.
const NS = 'portico';
const labels = { 'portico.dev/sso-provider': 'true' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

const configMap = (name: string, data: Record<string, string>, extraLabels: Record<string, string> = labels): KubeObject => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `portico-sso-${name}`, namespace: NS, labels: extraLabels }, data,
});
const secret = (name: string, clientID: string): KubeObject => ({
  apiVersion: 'v1', kind: 'Secret', metadata: { name: `portico-sso-${name}`, namespace: NS }, data: { clientID: b64(clientID) },
});
const good = { issuerURL: 'https://idp.example.com', redirectURL: 'https://portico.example.com/api/v1/auth/oidc/callback' };

describe('sign-in providers read from the cluster', () => {
  let cluster: Cluster;
  let registry: SsoProviderRegistry;
  const logLines: string[] = [];
  afterEach(async () => {
    registry?.stop();
    await cluster?.close();
  });

  async function start(objects: KubeObject[]) {
    logLines.length = 0;
    cluster = await createEmbeddedCluster();
    await cluster.create(resources.namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (const o of objects) await cluster.create(o.kind === 'Secret' ? resources.secret : resources.configMap, o);
    const logger = createLogger('warn', new Writable({ write: (chunk, _e, done) => (logLines.push(String(chunk)), done()) }));
    registry = createSsoProviderRegistry({ cluster, namespace: NS, logger, reserved: new Set(['corp']) });
    await registry.start();
  }

  it('offers a complete, valid provider; ignores invalid ones, unlabelled ones and one named like an environment provider, with one warning each', async () => {
    await start([
      configMap('dex', { ...good, displayName: 'Dex', scopes: 'email groups' }), secret('dex', 'portico'),
      configMap('plain-http', { ...good, issuerURL: 'http://idp.example.com' }), secret('plain-http', 'portico'),
      configMap('half-manual', { ...good, tokenURL: 'https://idp.example.com/token' }), secret('half-manual', 'portico'),
      configMap('corp', good), secret('corp', 'portico'),
      configMap('unlabelled', good, {}), secret('unlabelled', 'portico'),
    ]);
    expect(registry.providers().map((p) => [p.name, p.displayName, p.scopes.join(' '), p.clientId])).toEqual([['dex', 'Dex', 'openid email groups', 'portico']]);
    // Another provider arrives: the list is rebuilt, and the unchanged invalid ones are not reported again.
    await cluster.create(resources.secret, secret('zed', 'portico'));
    await cluster.create(resources.configMap, configMap('zed', good));
    await until(() => registry.providers().length === 2, 'the second provider to be offered');
    const warnings = logLines.map((l) => JSON.parse(l) as { provider: string; msg: string; reason?: string });
    expect(warnings.map((w) => w.provider).sort()).toEqual(['corp', 'half-manual', 'plain-http']);
    expect(warnings.find((w) => w.provider === 'plain-http')?.reason).toMatch(/^issuerURL: must be an https URL/);
  });

  it('knows a provider whose Secret is not there yet, but offers it only once its client ID is', async () => {
    await start([configMap('late', good)]);
    expect(registry.known().map((p) => [p.name, p.clientId])).toEqual([['late', '']]);
    expect(registry.providers()).toEqual([]);
    await cluster.create(resources.secret, secret('late', 'portico-late'));
    await until(() => registry.providers().length === 1, 'the provider to be offered');
    expect(registry.providers()[0]).toMatchObject({ name: 'late', clientId: 'portico-late', clientSecret: { from: 'secret', secret: 'portico-sso-late', key: 'clientSecret' } });
  });
});
