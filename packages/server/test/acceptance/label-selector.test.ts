import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../core/test/support/eventually.js';
import { createUser, uniqueName, type TestUser } from '../support/api-as.js';
import { clusterModes, useServer } from '../support/cluster-modes.js';

// `labelSelector` on the instance and RGD lists, over real HTTP on both cluster adapters: labels as Kubernetes
// stores them (Portico's own, and one added with kubectl) select the items before paging, and a selector that
// does not parse is a 400 naming the parameter.
describe.each(clusterModes)('%s cluster', (mode) => {
  const { tp, admin } = useServer(mode);
  const webapps = { group: 'kro.run', version: 'v1alpha1', kind: 'WebApp', plural: 'webapps', namespaced: true };
  type Listed = { items: Array<{ name: string; labels: Record<string, string> }>; totalCount: number };

  let project: string;
  let member: TestUser;
  const names = { gold: uniqueName('gold'), plain: uniqueName('plain'), cache: uniqueName('cache') };

  beforeAll(async () => {
    member = await createUser(tp, 'selector');
    project = uniqueName('labels');
    const roles = [{ name: 'developer', policies: ['instances/*, *, allow', 'rgds/*, get, allow'], users: [member.username] }];
    expect((await admin.post('/api/v1/projects', { name: project, destinations: [{ namespace: 'dev' }], roles })).status).toBe(201);
    for (const name of [names.gold, names.plain]) {
      expect((await member.post('/api/v1/namespaces/dev/instances/WebApp', { name, project, values: { image: 'nginx:1.27' } })).status).toBe(201);
    }
    const cache = await member.post('/api/v1/instances', { name: names.cache, namespace: 'dev', rgdName: 'redis-cache', projectId: project, spec: {} });
    expect(cache.status).toBe(201);
    // kubectl label: a label Portico did not set, read from the cluster like every other.
    await tp.kubectl.patch(webapps, names.gold, { metadata: { labels: { tier: 'gold' } } }, { namespace: 'dev' });
    await eventually(
      async () => (await member.get<Listed>(`/api/v1/instances?project=${project}&labelSelector=tier`)).body.items.map((i) => i.name),
      (found) => found.length === 1 && found[0] === names.gold,
      'the kubectl label in the list',
    );
  });

  const listed = async (query: string) => {
    const res = await member.get<Listed>(`/api/v1/instances?project=${project}&${query}`);
    expect(res.status).toBe(200);
    return { names: res.body.items.map((i) => i.name), totalCount: res.body.totalCount };
  };
  const selector = (text: string) => `labelSelector=${encodeURIComponent(text)}`;

  it('GET /instances?labelSelector= returns only the instances whose labels match, counted before paging', async () => {
    expect((await listed(selector('tier=gold'))).names).toEqual([names.gold]);
    expect((await listed(selector('portico.dev/rgd=web-app'))).names.sort()).toEqual([names.gold, names.plain].sort());
    expect((await listed(selector('portico.dev/rgd in (web-app),tier!=gold'))).names).toEqual([names.plain]);
    expect((await listed(selector('portico.dev/rgd notin (web-app)'))).names).toEqual([names.cache]);
    expect((await listed(selector('!tier'))).totalCount).toBe(2);
    const page = await listed(`${selector('!tier')}&pageSize=1&page=2&sortBy=name`);
    expect(page.names).toHaveLength(1);
    expect(page.totalCount).toBe(2);
  });

  it('GET /rgds?labelSelector= returns only the RGDs whose labels match', async () => {
    const rgds = async (text: string) => (await admin.get<Listed>(`/api/v1/rgds?pageSize=500&${selector(text)}`)).body;
    const all = (await admin.get<Listed>('/api/v1/rgds?pageSize=500')).body;
    // The example catalog labels one RGD for a project (payment-gateway, project payments).
    expect((await rgds('portico.dev/project')).items.map((r) => r.name)).toEqual(['payment-gateway']);
    expect((await rgds('portico.dev/project=payments')).totalCount).toBe(1);
    const rest = await rgds('!portico.dev/project');
    expect(rest.totalCount).toBe(all.totalCount - 1);
    expect(rest.items.map((r) => r.name)).not.toContain('payment-gateway');
  });

  it.each([
    ['/api/v1/instances', 'tier in gold', '"tier in gold": expected "(" after "in"'],
    ['/api/v1/rgds', 'tier in gold', '"tier in gold": expected "(" after "in"'],
    ['/api/v1/instances', 'Tier_/x=1', '"Tier_/x=1": label key "Tier_/x": the prefix must be a DNS subdomain (lower-case letters, digits, "-" and ".", at most 253 characters)'],
    ['/api/v1/rgds', `a=${'x'.repeat(1100)}`, 'must be at most 1024 characters'],
  ])('GET %s with the bad selector %j is 400 naming labelSelector and what is wrong', async (path, text, problem) => {
    const res = await member.get(`${path}?${selector(text)}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: `invalid query parameter "labelSelector": ${problem}`,
      details: { fields: { labelSelector: problem }, in: 'query' },
    });
  });
});
