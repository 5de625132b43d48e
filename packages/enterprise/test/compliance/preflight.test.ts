import { PreflightResponse } from '@portico/api';
import { describe, expect, it } from 'vitest';
import { createProject, uniqueName, type ApiAs } from '../../../server/test/support/api-as.js';
import { clusterModes } from '../../../server/test/support/cluster-modes.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { createConstraint } from '../support/constraints.js';
import { issueLicense } from '../support/license.js';
import { useEnterprise } from '../support/server.js';

const catalog = new URL('../../../../examples/catalog', import.meta.url).pathname;
const labelledApp = new URL('./labelled-app.yaml', import.meta.url).pathname;
const categoryCrd = new URL('../../../../deploy/crds/category.yaml', import.meta.url).pathname;

/** Waits until the constraints in force say `result` about these values. */
const inForce = (admin: ApiAs, project: string, namespace: string, values: Record<string, unknown>, result: 'block' | 'warning') =>
  eventually(() => admin.post('/api/v1/compliance/validate', { rgdName: 'labelled-app', project, namespace, values }), (r) => r.body?.result === result, `the constraint to be in force (${result})`, { timeoutMs: 20_000 });

// §11.4 with §12.5: a preflight runs the compliance checks of a create; a `deny` constraint makes it invalid with
// the field's wording, a `warn` one keeps it valid and shows up in its checks. Nothing is written either way.
describe.each(clusterModes)('preflight against compliance constraints (%s cluster)', (mode) => {
  const { ee, admin } = useEnterprise(mode, { manifests: [catalog, categoryCrd, labelledApp], license: issueLicense(), gatekeeper: true });

  it('a deny constraint gives "Blocked by policy", a warn one keeps the request valid with its finding', async () => {
    await eventually(() => admin.get('/api/v1/compliance/status'), (r) => r.body.gatekeeper === 'installed', 'Gatekeeper installed', { timeoutMs: 20_000 });
    const ns = uniqueName('pre');
    const project = await createProject(ee, 'pre', [ns]);
    const deny = uniqueName('owner-required');
    expect((await createConstraint(admin, {
      name: deny, templateName: 'k8srequiredlabels', enforcementAction: 'deny',
      match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: [ns] }, parameters: { labels: [{ key: 'owner' }] },
    })).status).toBe(201);
    await inForce(admin, project, ns, { labels: {} }, 'block');

    const path = `/api/v1/namespaces/${ns}/instances/LabelledApp/preflight`;
    const name = uniqueName('app');
    const blocked = await admin.post(path, { name, project, values: { labels: { team: 'shop' } } });
    expect(blocked.status).toBe(200);
    const result = PreflightResponse.parse(blocked.body);
    expect(result.valid).toBe(false);
    expect(result.message).toMatch(new RegExp(`^Blocked by policy "K8sRequiredLabels/${deny}": .*owner`));
    expect(result.checks.at(-1)).toEqual({ name: 'compliance', ok: false, message: result.message });
    expect((await admin.get(`/api/v1/namespaces/${ns}/instances/LabelledApp/${name}`)).status).toBe(404);

    const warn = uniqueName('trusted-registry');
    expect((await createConstraint(admin, {
      name: warn, templateName: 'k8sallowedrepos', enforcementAction: 'warn',
      match: { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], namespaces: [ns] }, parameters: { repos: ['registry.example.com/'] },
    })).status).toBe(201);
    const values = { labels: { owner: 'shop' }, image: 'docker.io/library/nginx:1' };
    await inForce(admin, project, ns, values, 'warning');
    const warned = PreflightResponse.parse((await admin.post(path, { name, project, values })).body);
    expect(warned.valid).toBe(true);
    expect(warned.checks).toContainEqual({ name: 'compliance', ok: true, message: expect.stringMatching(new RegExp(`^Warning from policy "K8sAllowedRepos/${warn}": `)) });
    expect(warned.checks.at(-1)).toEqual({ name: 'admission', ok: true });
    expect((await admin.get(`/api/v1/namespaces/${ns}/instances/LabelledApp/${name}`)).status).toBe(404);
  }, 60_000);
});
