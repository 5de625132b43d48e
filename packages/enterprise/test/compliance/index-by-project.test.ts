import { createEmbeddedCluster, createInformer, createLogger, resources, type EmbeddedCluster, type Informer, type ResourceRef } from '@portico/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../core/test/support/eventually.js';
import { createComplianceIndex, type ComplianceIndex } from '../../src/compliance/compliance-index.js';
import { createProjectsByNamespace, type ProjectsByNamespace } from '../../src/compliance/projects-by-namespace.js';

const catalog = new URL('../../../../examples/catalog', import.meta.url).pathname;
const constraintRef: ResourceRef = { group: 'constraints.gatekeeper.sh', version: 'v1beta1', kind: 'K8sRequiredLabels', plural: 'k8srequiredlabels', namespaced: false };

/** Status violations as Gatekeeper's audit writes them: Deployments in the given namespaces (and one Namespace). */
const statusOf = (namespaces: string[]) => {
  const violations = [
    ...namespaces.map((namespace, i) => ({ enforcementAction: 'dryrun', group: 'apps', version: 'v1', kind: 'Deployment', namespace, name: `app-${i}`, message: `missing label ${i}` })),
    { enforcementAction: 'dryrun', group: '', version: 'v1', kind: 'Namespace', name: 'payments-dev', message: 'namespace without label' },
  ];
  return { totalViolations: violations.length, violations };
};
const byProjectFiltering = (index: ComplianceIndex, project: string) => index.violations().filter((v) => v.project === project);

// The violations list filtered by project reads the index's per-project groups instead of scanning every violation
// in force: these must be exactly what filtering the whole list gives, in the same order, and follow changes.
describe('the compliance index grouped by project', () => {
  let cluster: EmbeddedCluster;
  let projectObjects: Informer;
  let projects: ProjectsByNamespace;
  let index: ComplianceIndex;

  beforeAll(async () => {
    cluster = await createEmbeddedCluster({ manifests: [catalog], kroStepMs: 0 });
    const logger = createLogger('silent');
    // As createPortico makes it: Portico's Projects are those of its own namespace.
    projectObjects = createInformer(cluster, resources.project, { namespace: 'portico', logger });
    await projectObjects.start();
    projects = createProjectsByNamespace(projectObjects);
    index = createComplianceIndex({ cluster, projects, logger, installPollMs: 50 });
    await index.start();
  });
  afterAll(async () => {
    index?.stop();
    projects?.stop();
    projectObjects?.stop();
    await cluster?.close();
  });

  it('holds what filtering every violation by project holds, in the same order, and follows status and project changes', async () => {
    // Only K8sRequiredLabels has its CRD here (no simulator generates the others): that kind is all this needs.
    await eventually(() => Promise.resolve(index.constraintRef('K8sRequiredLabels')), (ref) => ref !== undefined, 'the index to read K8sRequiredLabels');
    const namespaces = ['payments-prod', 'default', 'elsewhere', 'payments-dev', 'default', 'payments-prod'];
    await cluster.create(constraintRef, { apiVersion: 'constraints.gatekeeper.sh/v1beta1', kind: 'K8sRequiredLabels', metadata: { name: 'zz-team' }, spec: { match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }] } } });
    await cluster.patch(constraintRef, 'zz-team', { status: statusOf(namespaces) });
    await cluster.create(constraintRef, { apiVersion: 'constraints.gatekeeper.sh/v1beta1', kind: 'K8sRequiredLabels', metadata: { name: 'aa-owner' }, spec: { match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }] } } });
    await cluster.patch(constraintRef, 'aa-owner', { status: statusOf(['default', 'payments-staging']) });
    await eventually(() => Promise.resolve(index.violations().length), (n) => n === 10, 'both statuses indexed');

    for (const project of ['payments', 'default', 'nobody']) expect(index.violationsOfProject(project)).toEqual(byProjectFiltering(index, project));
    const payments = index.violationsOfProject('payments');
    // aa-owner sorts before zz-team; a Namespace counts for the project that holds it.
    expect(payments.map((v) => `${v.constraintName} ${v.resource.kind}/${v.resource.namespace}/${v.resource.name}`)).toEqual([
      'aa-owner Namespace//payments-dev',
      'aa-owner Deployment/payments-staging/app-1',
      'zz-team Namespace//payments-dev',
      'zz-team Deployment/payments-dev/app-3',
      'zz-team Deployment/payments-prod/app-0',
      'zz-team Deployment/payments-prod/app-5',
    ]);
    expect(index.violationsOfProject('nobody')).toEqual([]);

    // A project created later takes over the violations of its namespace: its group follows.
    await cluster.create(resources.project, { apiVersion: 'portico.dev/v1alpha1', kind: 'Project', metadata: { name: 'outside', namespace: 'portico' }, spec: { destinations: [{ namespace: 'elsewhere' }], roles: [] } });
    await eventually(() => Promise.resolve(index.violationsOfProject('outside').length), (n) => n === 1, 'the new project to own its namespace\'s violation');
    expect(index.violationsOfProject('outside')).toEqual(byProjectFiltering(index, 'outside'));

    await cluster.patch(constraintRef, 'zz-team', { status: statusOf(['default']) });
    await eventually(() => Promise.resolve(index.violationsOfProject('payments').length), (n) => n === 3, 'the change to reach the groups');
    for (const project of ['payments', 'default']) expect(index.violationsOfProject(project)).toEqual(byProjectFiltering(index, project));
  });

  it('projects-by-namespace: an exact name beats a pattern, and among equals the first project by name wins', async () => {
    const make = (name: string, destinations: string[]) =>
      cluster.create(resources.project, { apiVersion: 'portico.dev/v1alpha1', kind: 'Project', metadata: { name, namespace: 'portico' }, spec: { destinations: destinations.map((namespace) => ({ namespace })), roles: [] } });
    await make('rank-b', ['rank-shared', 'rank-only-b']);
    await make('rank-a', ['rank-shared']);
    await make('rank-0', ['rank-*']); // sorts first, but only a pattern
    await make('rank-c', ['rank-*']);
    await eventually(() => Promise.resolve(projects.projectOf('rank-shared')), (p) => p === 'rank-a', 'the first exact owner by name');
    expect(projects.projectOf('rank-only-b')).toBe('rank-b');
    expect(projects.projectOf('rank-elsewhere')).toBe('rank-0');
  });

  it('projects-by-namespace tells its listeners when destinations change, not when roles or bindings do', async () => {
    let told = 0;
    const subscription = projects.onChange(() => void (told += 1));
    try {
      const project = (destinations: string[], users: string[]) => ({
        destinations: destinations.map((namespace) => ({ namespace })),
        roles: [{ name: 'viewer', description: '', policies: ['instances/*, get, allow'], users, groups: [] }],
      });
      await cluster.create(resources.project, { apiVersion: 'portico.dev/v1alpha1', kind: 'Project', metadata: { name: 'quiet', namespace: 'portico' }, spec: project(['quiet-a'], []) });
      await eventually(() => Promise.resolve(projects.projectOf('quiet-a')), (p) => p === 'quiet', 'the new project to own its namespace');
      const before = told;
      // A binding (the common write to a Project), then a destination change: events arrive in order, so once the
      // second is told, the first was seen and told nobody.
      await cluster.patch(resources.project, 'quiet', { spec: project(['quiet-a'], ['ursula']) }, { namespace: 'portico' });
      await cluster.patch(resources.project, 'quiet', { spec: project(['quiet-a', 'quiet-b'], ['ursula']) }, { namespace: 'portico' });
      await eventually(() => Promise.resolve(told), (n) => n > before, 'the destination change told');
      expect(told).toBe(before + 1);
      expect(projects.projectOf('quiet-b')).toBe('quiet');
    } finally {
      subscription.close();
    }
  });
});
