import { describe, expect, it } from 'vitest';
import { uniqueName } from '../../../server/test/support/api-as.js';
import { eventually } from '../../../core/test/support/eventually.js';
import { createConstraint } from '../support/constraints.js';
import { issueLicense } from '../support/license.js';
import { useEnterprise } from '../support/server.js';

const catalog = new URL('../../../../examples/catalog', import.meta.url).pathname;
/** Portico's own namespace in this test: not the default, so the check must read it from the configuration. */
const OWN = 'platform-ops';

const deployments = [{ apiGroups: ['apps'], kinds: ['Deployment'] }];
const body = (over: Record<string, unknown> = {}) => ({
  name: uniqueName('c'), templateName: 'k8srequiredlabels', enforcementAction: 'dryrun',
  match: { kinds: deployments, namespaces: ['team-a-dev'] }, parameters: { labels: [{ key: 'owner' }] }, ...over,
});

// §12.5: what a new constraint may say. Every refusal is 400 VALIDATION_FAILED naming the field.
describe('constraint input (§12.5)', () => {
  const { admin } = useEnterprise('embedded', { manifests: [catalog], license: issueLicense(), gatekeeper: true, env: { PORTICO_NAMESPACE: OWN } });
  const refused = async (input: Record<string, unknown>, field: string) => {
    const res = await createConstraint(admin, input);
    expect(res.status, `${JSON.stringify(input)} → ${JSON.stringify(res.body)}`).toBe(400);
    expect(res.body.code).toBe('VALIDATION_FAILED');
    expect(Object.keys(res.body.details.fields), JSON.stringify(res.body.details.fields)).toContain(field);
    return res.body.details.fields[field] as string;
  };

  it('match.namespaces: labels or prefix*/*suffix patterns as sent, none that could match a system namespace or Portico\'s own, never []', async () => {
    await eventually(() => admin.get('/api/v1/compliance/status'), (r) => r.body.gatekeeper === 'installed', 'Gatekeeper installed', { timeoutMs: 20_000 });
    const bad = [
      'kube-system', 'kube-public', 'kube-node-lease', 'gatekeeper-system', OWN, // the system namespaces and Portico's
      'KUBE-SYSTEM', 'Kube-System', ' kube-system', 'kube-system ', 'kube-system\n', 'kube-system\u0000', // case and whitespace variants
      '*-system', 'kube-*', 'k*', '*', '*m', 'gatekeeper*', 'platform-*', '*-ops', // patterns that reach one
      'a*b', '**', '*-', '-dev', 'dev-', 'dev/x', 'dev.team', 'x'.repeat(64), // not a label or pattern
    ];
    for (const ns of bad) await refused(body({ match: { kinds: deployments, namespaces: ['team-a-dev', ns] } }), 'match.namespaces.1');
    expect(await refused(body({ match: { kinds: deployments, namespaces: ['*-system'] } }), 'match.namespaces.0')).toMatch(/matches "kube-system"/);
    expect(await refused(body({ match: { kinds: deployments, namespaces: [OWN] } }), 'match.namespaces.0')).toMatch(/system namespace/);
    await refused(body({ match: { kinds: deployments, namespaces: [] } }), 'match.namespaces');
    await refused(body({ match: { kinds: deployments, excludedNamespaces: ['Not A Label'] } }), 'match.excludedNamespaces.0');

    for (const namespaces of [['team-a-dev'], ['team-*'], ['*-dev'], ['team-a-dev', 'payments-*']]) {
      const res = await createConstraint(admin, body({ match: { kinds: deployments, namespaces } }));
      expect(res.status, `${namespaces} → ${JSON.stringify(res.body)}`).toBe(201);
    }
    // Left out: every namespace (Gatekeeper's default); excluding a system namespace is fine.
    const everywhere = await createConstraint(admin, body({ match: { kinds: deployments, excludedNamespaces: ['kube-system'] } }));
    expect(everywhere.status, JSON.stringify(everywhere.body)).toBe(201);
    expect(everywhere.body.match).toMatchObject({ namespaces: [], excludedNamespaces: ['kube-system'] });
  }, 60_000);

  it('parameters follow the template\'s openAPIV3Schema, unknown fields included, and are at most 64 KiB', async () => {
    expect(await refused(body({ parameters: { labels: [{ key: 'owner' }], extra: true } }), 'parameters.extra')).toBe('unknown field');
    expect(await refused(body({ parameters: { labels: [{ key: 'owner', colour: 'red' }] } }), 'parameters.labels[0].colour')).toBe('unknown field');
    await refused(body({ parameters: { labels: [{ allowedRegex: 'x' }] } }), 'parameters.labels[0].key');
    await refused(body({ parameters: { labels: [{ key: 'owner', allowedRegex: 'x'.repeat(64 * 1024) }] } }), 'parameters');
    // A template without a parameters schema takes none.
    await refused({ name: uniqueName('np'), templateName: 'k8sblocknodeport', match: { kinds: [{ apiGroups: [''], kinds: ['Service'] }] }, parameters: { anything: 1 } }, 'parameters.anything');
    expect((await createConstraint(admin, body({ parameters: { labels: [{ key: 'owner', allowedRegex: '^[a-z]+$' }], message: 'name an owner' } }))).status).toBe(201);
  }, 30_000);

  it('labels are Kubernetes label keys and values', async () => {
    await refused(body({ labels: { 'bad key!': 'x' } }), 'labels.bad key!');
    await refused(body({ labels: { '-leading': 'x' } }), 'labels.-leading');
    await refused(body({ labels: { 'Example.COM/name': 'x' } }), 'labels.Example.COM/name');
    await refused(body({ labels: { team: 'has space' } }), 'labels.team');
    const ok = await createConstraint(admin, body({ labels: { 'app.kubernetes.io/name': 'portico', team: '', 'owner_2.x': 'a-b_c.d' } }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.labels).toEqual({ 'app.kubernetes.io/name': 'portico', team: '', 'owner_2.x': 'a-b_c.d' });
  }, 30_000);
});
