import { describe, expect, it } from 'vitest';
import { eventually } from '../packages/core/test/support/eventually.js';
import type { Grant } from '../packages/core/test/support/kube-rbac.js';
import { editionGrants, porticoRbac, sampleCatalogGrants, type Edition, type PorticoRbac } from '../packages/core/test/support/rendered-rbac.js';
import { apiAs, uniqueName, type ApiAs } from '../packages/server/test/support/api-as.js';
import { startPorticoServer, type PorticoServer } from '../packages/server/test/support/cluster-modes.js';
import { createConstraint } from '../packages/enterprise/test/support/constraints.js';
import { issueLicense } from '../packages/enterprise/test/support/license.js';
import { startEnterpriseServer } from '../packages/enterprise/test/support/server.js';

/**
 * No rule of the shipped RBAC is unused (issue 40, acceptance 1). The Kubernetes-mode suites run with every rule
 * of their edition (support/cluster-modes.ts turns the fake API server's RBAC mode on), so a missing rule fails
 * them; this test removes each rule of deploy/base and deploy/enterprise in turn and runs a representative
 * workload of those suites against Portico on the fake API server, which must then fail. The workload, per
 * edition, is what the suites named in docs/operations.md ("RBAC") do with each resource: start, the catalog,
 * a project's namespaces, a Secret and an instance with its Events, a repository, a cascade deletion; and in
 * Enterprise a category and a constraint.
 */

const catalog = new URL('../examples/catalog', import.meta.url).pathname;
const categoryCrd = new URL('./crds/category.yaml', import.meta.url).pathname;

/** Starts a server of the edition on the fake API server with these rules in force. */
async function serverWith(edition: Edition, rbac: PorticoRbac): Promise<PorticoServer> {
  if (edition === 'oss') return startPorticoServer({ mode: 'kubernetes', rbac });
  return startEnterpriseServer({ mode: 'kubernetes', rbac, manifests: [catalog, categoryCrd], license: issueLicense(), gatekeeper: true });
}

const expectStatus = async (reply: Promise<{ status: number; body: unknown }>, status: number, what: string) => {
  const { status: got, body } = await reply;
  if (got !== status) throw new Error(`${what}: expected ${status}, got ${got} ${JSON.stringify(body)}`);
};

/** What the OSS suites do with each resource Portico's rules cover. */
async function ossWorkload(server: PorticoServer, admin: ApiAs): Promise<void> {
  const rgds = (await admin.get('/api/v1/rgds')).body as { totalCount: number };
  if (!(rgds.totalCount > 0)) throw new Error('the catalog is empty');
  const project = uniqueName('rbac');
  await expectStatus(admin.post('/api/v1/projects', { name: project, destinations: [{ namespace: 'dev' }] }), 201, 'create a project');
  const namespaces = (await admin.get(`/api/v1/projects/${project}/namespaces`)).body as { namespaces?: string[] };
  if (!namespaces.namespaces?.includes('dev')) throw new Error(`the project's namespaces: ${JSON.stringify(namespaces)}`);
  await expectStatus(admin.post(`/api/v1/projects/${project}/secrets`, { name: `${project}-db`, namespace: 'dev', data: { password: 'x' } }), 201, 'create a Secret');
  await expectStatus(admin.post('/api/v1/instances', { name: `${project}-web`, namespace: 'dev', rgdName: 'web-app', projectId: project, spec: { image: 'nginx' } }), 201, 'create an instance');
  await expectStatus(admin.get(`/api/v1/namespaces/dev/instances/WebApp/${project}-web/events`), 200, "read the instance's Events");
  await expectStatus(admin.post('/api/v1/repositories', { name: 'Deploys', projectId: project, repoURL: 'https://203.0.113.10/deploys.git', authType: 'https', httpsAuth: { username: 'u', password: 'p' } }), 201, 'register a repository');
  await expectStatus(admin.del(`/api/v1/projects/${project}?cascade=true`), 204, 'delete the project with cascade');
  // Every request went through: one refused on the way (a watch retried behind the scenes) is a failure too.
  if (server.rbac!.refused.length > 0) throw new Error(`the API server refused ${JSON.stringify(server.rbac!.refused[0])}`);
}

async function enterpriseWorkload(server: PorticoServer, admin: ApiAs): Promise<void> {
  await ossWorkload(server, admin);
  await expectStatus(admin.post('/api/v1/categories', { slug: uniqueName('queues'), name: 'Queues' }), 201, 'create a category');
  await eventually(() => admin.get('/api/v1/compliance/status'), (r) => (r.body as { gatekeeper?: string }).gatekeeper === 'installed', 'Gatekeeper installed', { timeoutMs: 5_000 });
  const constraint = await createConstraint(admin, { name: uniqueName('owner'), templateName: 'k8srequiredlabels', enforcementAction: 'dryrun', match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }] }, parameters: { labels: [{ key: 'owner' }] } });
  if (constraint.status !== 201) throw new Error(`create a constraint: ${constraint.status} ${JSON.stringify(constraint.body)}`);
  await expectStatus(admin.patch(`/api/v1/compliance/constraints/K8sRequiredLabels/${(constraint.body as { name: string }).name}/enforcement`, { enforcementAction: 'warn' }), 200, 'change its enforcement');
  if (server.rbac!.refused.length > 0) throw new Error(`the API server refused ${JSON.stringify(server.rbac!.refused[0])}`);
}

/**
 * Runs the edition's workload with these rules; resolves with why it failed, or undefined when it passed. A
 * request the API server refuses ends the run at once: Portico would retry a refused watch for ever (a start
 * waiting on it never finishes), and the refusal is the failure a real cluster would show.
 */
async function failureWith(edition: Edition, grants: Grant[]): Promise<string | undefined> {
  const rbac = porticoRbac([...grants, ...sampleCatalogGrants]);
  let server: PorticoServer | undefined;
  const run = async () => {
    server = await serverWith(edition, rbac);
    const admin = apiAs(server.url, server.adminToken);
    await (edition === 'oss' ? ossWorkload(server, admin) : enterpriseWorkload(server, admin));
  };
  let poll: NodeJS.Timeout | undefined;
  const refused = new Promise<never>((_, reject) => {
    poll = setInterval(() => rbac.refused.length > 0 && reject(new Error(`the API server refused ${JSON.stringify(rbac.refused[0])}`)), 20);
  });
  const limit = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('did not finish in 30 s')), 30_000).unref());
  const running = run();
  try {
    await Promise.race([running, refused, limit]);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    clearInterval(poll);
    // A start cut short by a refusal waits on a watch retried for ever: let it finish, then close what it opened.
    rbac.lift();
    await running.catch(() => undefined);
    await (server as PorticoServer | undefined)?.close().catch(() => undefined);
  }
}

describe.each(['oss', 'enterprise'] as const)('the %s edition\'s RBAC: every rule is needed', (edition) => {
  const grants = editionGrants(edition);

  it('the workload passes with every rule', { timeout: 60_000 }, async () => {
    expect(await failureWith(edition, grants)).toBeUndefined();
  });

  it.each(grants.map((g, i) => [g.source, i] as const))('without %s it fails', { timeout: 60_000 }, async (_source, i) => {
    expect(await failureWith(edition, grants.filter((_, j) => j !== i))).toEqual(expect.any(String));
  });
});
