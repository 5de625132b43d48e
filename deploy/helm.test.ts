import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { grantsFor, type Grant } from '../packages/core/test/support/kube-rbac.js';
import { editionGrants, porticoAccount } from '../packages/core/test/support/rendered-rbac.js';
import { buildRenderer, chartDir, deployDir, renderChart, type Manifest } from './helm-render.js';

/**
 * The Helm chart rendered as `helm template` would (helm-render.ts). Every rendered object is validated against
 * the Kubernetes OpenAPI schema of its kind (kubernetes-models); the defaults and the enterprise values file are
 * both rendered.
 */

let renderer: string;
let scratch: string;

const render = (...valuesFiles: string[]): Manifest[] => renderChart(renderer, valuesFiles.map((f) => path.join(chartDir, f)));

/** kubernetes-models lays its classes out by group/version/Kind; core v1 is `v1`. */
async function validateAgainstKubernetesSchema(doc: Manifest): Promise<void> {
  const model = await import(/* @vite-ignore */ `kubernetes-models/${doc.apiVersion}/${doc.kind}`);
  new model[doc.kind](doc).validate();
}

const only = (docs: Manifest[], kind: string, name: string) => {
  const found = docs.filter((d) => d.kind === kind && d.metadata.name === name);
  expect(found, `${kind} ${name}`).toHaveLength(1);
  return found[0];
};
const container = (docs: Manifest[]) => only(docs, 'Deployment', 'portico').spec.template.spec.containers[0];
const env = (docs: Manifest[]) => Object.fromEntries(container(docs).env.map((e: any) => [e.name, e.value ?? e.valueFrom]));

beforeAll(() => {
  scratch = mkdtempSync(path.join(tmpdir(), 'portico-helm-'));
  renderer = buildRenderer();
}, 240_000);

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(path.dirname(renderer), { recursive: true, force: true });
});

describe.each([
  ['defaults', [] as string[]],
  ['the enterprise values file', ['values-enterprise.yaml']],
])('the Helm chart rendered with %s', (_label, files) => {
  let docs: Manifest[];
  beforeAll(() => {
    docs = render(...files);
  });

  it('validates every object against the Kubernetes schema of its kind', async () => {
    const kinds = new Set(docs.map((d) => `${d.apiVersion} ${d.kind}`));
    for (const doc of docs) {
      if (doc.kind === 'ServiceMonitor') continue; // a Prometheus Operator CRD, checked below
      await expect(validateAgainstKubernetesSchema(doc), `${doc.kind} ${doc.metadata.name}`).resolves.toBeUndefined();
    }
    for (const kind of ['apps/v1 Deployment', 'v1 Service', 'v1 ServiceAccount', 'rbac.authorization.k8s.io/v1 ClusterRole', 'policy/v1 PodDisruptionBudget', 'networking.k8s.io/v1 NetworkPolicy', 'apiextensions.k8s.io/v1 CustomResourceDefinition']) {
      expect(kinds).toContain(kind);
    }
  });

  it('installs into the release namespace with hardened, probed, resource-bounded pods', () => {
    for (const doc of docs.filter((d) => !['ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition'].includes(d.kind))) {
      expect(doc.metadata.namespace, `${doc.kind} ${doc.metadata.name}`).toBe('portico');
    }
    const c = container(docs);
    expect(c.securityContext).toMatchObject({ runAsNonRoot: true, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(c.livenessProbe.httpGet.path).toBe('/healthz');
    expect(c.readinessProbe.httpGet.path).toBe('/readyz');
    expect(c.resources.requests).toBeDefined();
    expect(c.resources.limits.memory).toBeDefined();
    // The Service and the Deployment agree on the pods.
    const selector = only(docs, 'Service', 'portico').spec.selector;
    expect(only(docs, 'Deployment', 'portico').spec.template.metadata.labels).toMatchObject(selector);
  });

  it('serves metrics on their own port, reachable only from the monitoring namespace', () => {
    expect(env(docs).METRICS_ADDRESS).toBe(':9090');
    expect(container(docs).ports.map((p: any) => p.name)).toEqual(['http', 'metrics']);
    expect(only(docs, 'Service', 'portico').spec.ports.map((p: any) => p.targetPort)).toEqual(['http']);
    const policy = only(docs, 'NetworkPolicy', 'portico');
    const metricsRule = policy.spec.ingress.find((r: any) => r.ports[0].port === 'metrics');
    expect(metricsRule.from).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
  });
});

describe('the chart\'s RBAC', () => {
  // What the rules and where they hold, without the names they are written under.
  const normalized = (grants: Grant[]) => grants.map((g) => JSON.stringify({ namespace: g.namespace ?? '*', rule: g.rule })).sort();

  it.each([
    ['oss', [] as string[]],
    ['enterprise', ['values-enterprise.yaml']],
  ] as const)('binds Portico\'s account to exactly the rules of the kustomize install (%s), which the RBAC-mode suites run with', (edition, files) => {
    expect(normalized(grantsFor(render(...files), porticoAccount))).toEqual(normalized(editionGrants(edition)));
  });

  it('adds the rules a catalog needs from rbac.extraClusterRules', () => {
    const extra = path.join(scratch, 'extra-rules.yaml');
    writeFileSync(extra, 'rbac:\n  extraClusterRules:\n    - apiGroups: ["payments.portico.dev"]\n      resources: ["*"]\n      verbs: ["get", "list", "watch", "create", "patch", "delete"]\n');
    const out = execFileSync(renderer, [chartDir, extra], { encoding: 'utf8' });
    const role = parseAllDocuments(out).map((d) => d.toJSON() as Manifest).find((d) => d?.kind === 'ClusterRole')!;
    expect(role.rules.at(-1)).toEqual({ apiGroups: ['payments.portico.dev'], resources: ['*'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] });
  });
});

describe('chart values', () => {
  it('defaults: two replicas with the quick-start Redis, no ingress, no ServiceMonitor, no database', () => {
    const docs = render();
    expect(only(docs, 'Deployment', 'portico').spec.replicas).toBe(2);
    expect(env(docs).REDIS_ADDRESS).toBe('portico-redis:6379');
    only(docs, 'Deployment', 'portico-redis');
    only(docs, 'Service', 'portico-redis');
    expect(docs.filter((d) => ['Ingress', 'ServiceMonitor'].includes(d.kind))).toEqual([]);
    expect(env(docs).DATABASE_URL).toBeUndefined();
    expect(container(docs).image).toBe('ghcr.io/portico-dev/portico:0.1.0');
  });

  it('enterprise: PostgreSQL and the license from Secrets, Redis and OIDC from Secrets, ingress with TLS, a ServiceMonitor', () => {
    const docs = render('values-enterprise.yaml');
    const e = env(docs);
    expect(e.DATABASE_URL).toEqual({ secretKeyRef: { name: 'portico-database', key: 'url' } });
    expect(e.PORTICO_LICENSE).toBeUndefined();
    expect(e.PORTICO_LICENSE_FILE).toBe('/etc/portico/license/license.jwt');
    expect(only(docs, 'Deployment', 'portico').spec.template.spec.volumes).toContainEqual({ name: 'license-file', secret: { secretName: 'portico-license-file', optional: true } });
    expect(container(docs).volumeMounts).toContainEqual({ name: 'license-file', mountPath: '/etc/portico/license', readOnly: true });
    expect(e.REDIS_ADDRESS).toEqual({ secretKeyRef: { name: 'portico-redis', key: 'url' } });
    expect(e.PORTICO_OIDC_CONFIG).toBe('/etc/portico/oidc/providers.yaml');
    const pod = only(docs, 'Deployment', 'portico').spec.template.spec;
    expect(pod.volumes).toContainEqual({ name: 'oidc', secret: { secretName: 'portico-oidc' } });
    expect(container(docs).volumeMounts).toContainEqual({ name: 'oidc', mountPath: '/etc/portico/oidc', readOnly: true });
    expect(docs.filter((d) => d.metadata.name === 'portico-redis')).toEqual([]);
    expect(only(docs, 'Deployment', 'portico').spec.replicas).toBe(3);
    const ingress = only(docs, 'Ingress', 'portico');
    expect(ingress.spec.tls).toEqual([{ hosts: ['portico.example.com'], secretName: 'portico-tls' }]);
    expect(ingress.spec.rules[0].http.paths[0].backend.service).toEqual({ name: 'portico', port: { name: 'http' } });
    const monitor = only(docs, 'ServiceMonitor', 'portico');
    expect(monitor.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '30s' }]);
    expect(only(docs, 'Service', 'portico-metrics').metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
  });

  it('refuses a license Secret named portico-license, the Secret Portico writes applied licenses to', () => {
    const clash = path.join(scratch, 'license-clash.yaml');
    writeFileSync(clash, 'enterprise:\n  license:\n    existingSecret: portico-license\n');
    expect(() => execFileSync(renderer, [chartDir, path.join(chartDir, 'values-enterprise.yaml'), clash], { stdio: 'pipe' })).toThrow(/must not be portico-license/);
  });

  it('installs the CRDs of deploy/crds, the Enterprise edition\'s Category among them', () => {
    for (const file of ['project.yaml', 'category.yaml']) {
      expect(readFileSync(path.join(chartDir, 'crds', file), 'utf8'), file).toBe(readFileSync(path.join(deployDir, 'crds', file), 'utf8'));
    }
    const crds = render('values-enterprise.yaml').filter((d) => d.kind === 'CustomResourceDefinition').map((d) => d.metadata.name);
    expect(crds.sort()).toEqual(['categories.portico.dev', 'projects.portico.dev']);
  });

  it('refuses the enterprise edition without its database Secret, naming the value', () => {
    const broken = path.join(scratch, 'no-database.yaml');
    const text = readFileSync(path.join(chartDir, 'values-enterprise.yaml'), 'utf8').replace('existingSecret: portico-database', 'existingSecret: ""');
    writeFileSync(broken, text);
    expect(() => execFileSync(renderer, [chartDir, broken], { stdio: 'pipe' })).toThrow(/enterprise\.database\.existingSecret is required/);
  });
});
