import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { FakeRbac } from './fake-kube-api.js';
import { allows, forbiddenMessage, grantsFor, type Grant, type RequestAttributes, type ServiceAccountRef } from './kube-rbac.js';

/**
 * The RBAC Portico ships, as the fake API server's RBAC mode enforces it: the ClusterRoles, Roles and bindings of
 * `deploy/base` (OSS) or `deploy/enterprise`, built as `kubectl apply -k` builds them, bound to Portico's service
 * account. deploy/helm.test.ts holds the Helm chart's rendered rules equal to these, edition by edition.
 */

export type Edition = 'oss' | 'enterprise';

const deployDir = fileURLToPath(new URL('../../../../deploy/', import.meta.url));
export const editionDirs: Record<Edition, string> = { oss: path.join(deployDir, 'base'), enterprise: path.join(deployDir, 'enterprise') };

/** The service account the manifests create and bind (namespace `portico`, Portico's default namespace too). */
export const porticoAccount: ServiceAccountRef = { name: 'portico', namespace: 'portico' };

type Manifest = Record<string, any> & { kind?: string; metadata?: Record<string, any> };

const clusterScoped = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition']);

const parseYaml = (file: string): Manifest[] =>
  parseAllDocuments(readFileSync(file, 'utf8')).flatMap((d) => {
    const value = d.toJSON();
    return value ? [value as Manifest] : [];
  });

/**
 * What `kubectl kustomize <dir>` gives for what these kustomizations use: `resources` (files and directories with
 * a kustomization of their own) and `namespace` (set on every namespaced object and on the bindings' service
 * account subjects). Patches change the Deployment only, which RBAC does not read.
 */
export function kustomizeBuild(dir: string): Manifest[] {
  const file = ['kustomization.yaml', 'kustomization.yml'].map((f) => path.join(dir, f)).find(existsSync);
  if (!file) throw new Error(`no kustomization in ${dir}`);
  const [kustomization] = parseYaml(file);
  const built = ((kustomization.resources ?? []) as string[]).flatMap((entry) => {
    const target = path.join(dir, entry);
    return statSync(target).isDirectory() ? kustomizeBuild(target) : parseYaml(target);
  });
  const namespace = kustomization.namespace as string | undefined;
  if (!namespace) return built;
  return built.map((m) => {
    const out = structuredClone(m);
    if (!clusterScoped.has(out.kind ?? '')) out.metadata = { ...out.metadata, namespace };
    if (Array.isArray(out.subjects)) out.subjects = out.subjects.map((s: Manifest) => (s.kind === 'ServiceAccount' ? { ...s, namespace } : s));
    return out;
  });
}

/** The rules an edition's manifests bind to Portico's service account. */
export const editionGrants = (edition: Edition): Grant[] => grantsFor(kustomizeBuild(editionDirs[edition]), porticoAccount);

/**
 * What an operator adds for the example catalog (examples/catalog), as docs/operations.md tells them to for their
 * own: the instances of its RGD in another group than kro.run, and `get` on the kinds its RGDs create, so an
 * instance's children show their state.
 */
export const sampleCatalogGrants: Grant[] = [
  { source: 'sample catalog: payments.portico.dev instances', rule: { apiGroups: ['payments.portico.dev'], resources: ['*'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] } },
  {
    source: 'sample catalog: children',
    rule: { apiGroups: ['', 'apps', 'batch', 'networking.k8s.io', 'policy', 'autoscaling'], resources: ['configmaps', 'services', 'persistentvolumeclaims', 'deployments', 'statefulsets', 'cronjobs', 'ingresses', 'networkpolicies', 'poddisruptionbudgets', 'horizontalpodautoscalers'], verbs: ['get'] },
  },
];

/** RBAC mode for the fake API server as Portico's replicas (clients named `portico…`) would meet it. */
export interface PorticoRbac extends FakeRbac {
  grants: Grant[];
  /** Every request refused so far. */
  refused: RequestAttributes[];
  /** Grants everything from now on: a test that has seen what it wanted lets a start stuck on a refusal finish. */
  lift(): void;
}

export function porticoRbac(grants: Grant[]): PorticoRbac {
  const refused: RequestAttributes[] = [];
  let lifted = false;
  return {
    grants,
    refused,
    lift: () => void (lifted = true),
    appliesTo: (client) => client?.startsWith('portico') === true,
    allows(request) {
      const allowed = lifted || allows(grants, request);
      if (!allowed) refused.push(request);
      return allowed;
    },
    message: (request) => forbiddenMessage(porticoAccount, request),
  };
}
