import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKubernetesCluster } from '../../src/adapters/kubernetes/index.js';
import { resources, type Cluster } from '../../src/ports/cluster.js';
import { startFakeKubeApi, type FakeKubeApi } from '../support/fake-kube-api.js';
import { editionGrants, porticoRbac, type PorticoRbac } from '../support/rendered-rbac.js';

// The fake API server's RBAC mode, with deploy/base's rules for Portico's account: a call they grant is served,
// any other is 403 Forbidden in the API server's words, in the namespaces a Role holds in only; clients other
// than Portico (kubectl, kro) are not restricted.
describe('the fake API server in RBAC mode', () => {
  let api: FakeKubeApi;
  let rbac: PorticoRbac;
  let portico: Cluster;
  let kubectl: Cluster;

  beforeAll(async () => {
    rbac = porticoRbac(editionGrants('oss'));
    api = await startFakeKubeApi({ rbac });
    portico = createKubernetesCluster({ inCluster: false, kubeConfig: api.clientConfig('portico-1'), requestTimeoutMs: 5_000 });
    kubectl = createKubernetesCluster({ inCluster: false, kubeConfig: api.kubeConfig, requestTimeoutMs: 5_000 });
  });
  afterAll(async () => {
    await portico?.close();
    await kubectl?.close();
    await api?.stop();
  });

  const configMap = (namespace: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'icons', namespace }, data: {} });

  it('serves what the rules grant: ConfigMaps in Portico\'s namespace (the Role), Secrets anywhere (the ClusterRole)', async () => {
    await expect(portico.create(resources.configMap, configMap('portico'))).resolves.toMatchObject({ metadata: { name: 'icons' } });
    await expect(portico.list(resources.secret, { namespace: 'team-a' })).resolves.toMatchObject({ items: [] });
  });

  it('refuses anything else with 403, naming the account, the verb and the resource', async () => {
    await expect(portico.create(resources.configMap, configMap('team-a'))).rejects.toThrow(/the Kubernetes API refused/);
    const refused = api.requests.filter((r) => r.status === 403).at(-1)!;
    expect(refused.rbac).toMatchObject({ verb: 'create', group: '', resource: 'configmaps', namespace: 'team-a', allowed: false });
    expect(rbac.message(refused.rbac!)).toBe('configmaps is forbidden: User "system:serviceaccount:portico:portico" cannot create resource "configmaps" in API group "" in the namespace "team-a"');
    expect(rbac.refused).toContainEqual(expect.objectContaining({ verb: 'create', resource: 'configmaps', namespace: 'team-a' }));
  });

  it('leaves other clients alone', async () => {
    await expect(kubectl.create(resources.configMap, configMap('team-b'))).resolves.toMatchObject({ metadata: { namespace: 'team-b' } });
  });
});
