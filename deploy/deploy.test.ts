import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv, { type AnySchemaObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

/**
 * Static checks of the install manifests and the Dockerfile (no cluster and no Docker here): everything
 * parses, uses known kinds and valid names, the kustomizations are complete, the Deployment is hardened, RBAC
 * stays least-privilege, and the example Projects are valid against the Project CRD's schema.
 */

const deployDir = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(deployDir, '..');

type Manifest = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; [k: string]: any }; [k: string]: any };
interface Doc {
  file: string;
  doc: Manifest;
}

const yamlFilesIn = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const full = path.join(dir, e.name);
        // The Helm chart holds templates, not manifests: helm.test.ts renders and checks it.
        if (e.isDirectory()) return full === path.join(deployDir, 'helm') ? [] : yamlFilesIn(full);
        return /\.ya?ml$/.test(e.name) ? [full] : [];
      })
    : [];

function parseFile(file: string): Manifest[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  return docs.flatMap((d) => {
    if (d.errors.length) throw new Error(`${path.relative(repoRoot, file)}: ${d.errors[0].message}`);
    const value = d.toJSON();
    return value === null || value === undefined ? [] : [value as Manifest];
  });
}

const allDocs: Doc[] = yamlFilesIn(deployDir).flatMap((file) => parseFile(file).map((doc) => ({ file, doc })));
const manifests = allDocs.filter((d) => d.doc.kind !== 'Kustomization');
const find = (kind: string, name: string, dir = 'base') => {
  const found = manifests.find((d) => d.doc.kind === kind && d.doc.metadata?.name === name && path.relative(deployDir, d.file).startsWith(dir));
  if (!found) throw new Error(`no ${kind} ${name} under deploy/${dir}`);
  return found.doc;
};

const KNOWN_KINDS: Record<string, string[]> = {
  v1: ['Namespace', 'ServiceAccount', 'Service'],
  'apps/v1': ['Deployment'],
  'policy/v1': ['PodDisruptionBudget'],
  'rbac.authorization.k8s.io/v1': ['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'],
  'apiextensions.k8s.io/v1': ['CustomResourceDefinition'],
  'portico.dev/v1alpha1': ['Project'],
  'kustomize.config.k8s.io/v1beta1': ['Kustomization'],
  'networking.k8s.io/v1': ['NetworkPolicy'],
  'monitoring.coreos.com/v1': ['ServiceMonitor'],
};
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

describe('deploy/ manifests', () => {
  it('finds the manifests', () => {
    expect(manifests.length).toBeGreaterThanOrEqual(12);
  });

  it('every document has a known apiVersion and kind', () => {
    for (const { file, doc } of allDocs) {
      expect(KNOWN_KINDS[doc.apiVersion], `${path.relative(repoRoot, file)}: apiVersion ${doc.apiVersion}`).toBeDefined();
      expect(KNOWN_KINDS[doc.apiVersion], `${path.relative(repoRoot, file)}: kind ${doc.kind}`).toContain(doc.kind);
    }
  });

  it('every name is a DNS-1123 name (a label where Kubernetes requires one)', () => {
    for (const { file, doc } of manifests) {
      const name = doc.metadata?.name;
      const where = `${path.relative(repoRoot, file)}: ${doc.kind} ${name}`;
      expect(typeof name, where).toBe('string');
      expect(name.length <= 253 && DNS_SUBDOMAIN.test(name), where).toBe(true);
      if (['Namespace', 'Service', 'Project'].includes(doc.kind)) expect(name.length <= 63 && DNS_LABEL.test(name), where).toBe(true);
      if (doc.metadata.namespace !== undefined) expect(DNS_LABEL.test(doc.metadata.namespace), where).toBe(true);
    }
  });

  describe('kustomizations', () => {
    const kustomizations = allDocs.filter((d) => d.doc.kind === 'Kustomization');

    it('list resources that exist and forget no manifest next to them', () => {
      expect(kustomizations.map((k) => path.relative(deployDir, path.dirname(k.file))).sort()).toEqual(['base', 'crds', 'enterprise', 'monitoring', 'redis']);
      for (const { file, doc } of kustomizations) {
        const dir = path.dirname(file);
        const listed: string[] = doc.resources;
        const patches: string[] = (doc.patches ?? []).map((p: { path: string }) => p.path);
        for (const entry of listed) {
          const target = path.resolve(dir, entry);
          expect(existsSync(target), `${path.relative(repoRoot, file)}: ${entry}`).toBe(true);
          // kustomize only loads files inside its root; anything outside must be a directory with a kustomization.
          if (entry.startsWith('..')) expect(statSync(target).isDirectory() && existsSync(path.join(target, 'kustomization.yaml'))).toBe(true);
        }
        const siblings = readdirSync(dir).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml');
        expect(siblings.filter((f) => !listed.includes(f) && !patches.includes(f)), `unlisted in ${path.relative(repoRoot, file)}`).toEqual([]);
      }
    });

    it('install into the portico namespace, the base including the Project CRD', () => {
      const base = kustomizations.find((k) => k.file.endsWith(path.join('base', 'kustomization.yaml')))!.doc;
      const redis = kustomizations.find((k) => k.file.endsWith(path.join('redis', 'kustomization.yaml')))!.doc;
      expect(base.namespace).toBe('portico');
      expect(redis.namespace).toBe('portico');
      expect(base.resources).toContain('../crds');
      const crds = kustomizations.find((k) => k.file.endsWith(path.join('crds', 'kustomization.yaml')))!.doc;
      expect(crds.resources).toContain('project.yaml');
      expect(crds.resources).toContain('category.yaml');
    });

    it('the Enterprise overlay runs the Enterprise image with DATABASE_URL and the license file from Secrets', () => {
      const overlay = kustomizations.find((k) => k.file.endsWith(path.join('enterprise', 'kustomization.yaml')))!.doc;
      expect(overlay.namespace).toBe('portico');
      expect(overlay.resources).toContain('../base');
      const patch = find('Deployment', 'portico', 'enterprise');
      const container = patch.spec.template.spec.containers[0];
      expect(container.image).toMatch(/portico-enterprise:/);
      const env = Object.fromEntries(container.env.map((e: { name: string }) => [e.name, e]));
      expect(env.DATABASE_URL.valueFrom.secretKeyRef).toEqual({ name: 'portico-database', key: 'url' });
      const volume = patch.spec.template.spec.volumes.find((v: { name: string }) => v.name === 'license-file');
      expect(volume.secret).toMatchObject({ secretName: 'portico-license-file', optional: true });
      expect(container.volumeMounts.find((m: { name: string }) => m.name === 'license-file').mountPath).toBe(env.PORTICO_LICENSE_FILE.value.replace(/\/[^/]+$/, ''));
      const role = find('ClusterRole', 'portico-enterprise', 'enterprise');
      expect(role.rules.map((r: { apiGroups: string[] }) => r.apiGroups[0])).toEqual(['portico.dev', 'templates.gatekeeper.sh', 'constraints.gatekeeper.sh']);
    });
  });

  describe('the Portico Deployment', () => {
    const deployment = find('Deployment', 'portico');
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0];
    const env = Object.fromEntries(container.env.map((e: { name: string; value?: string; valueFrom?: unknown }) => [e.name, e.value ?? e.valueFrom]));

    it('runs two replicas of the release image, spread over nodes and zones, with a disruption budget', () => {
      expect(deployment.spec.replicas).toBe(2);
      expect(pod.containers).toHaveLength(1);
      expect(container.image).toBe('ghcr.io/portico-dev/portico:0.1.0');
      expect(pod.topologySpreadConstraints.map((c: { topologyKey: string }) => c.topologyKey)).toContain('kubernetes.io/hostname');
      expect(deployment.spec.selector.matchLabels).toEqual(
        Object.fromEntries(Object.entries(deployment.spec.template.metadata.labels).filter(([k]) => k in deployment.spec.selector.matchLabels)),
      );
      const pdb = find('PodDisruptionBudget', 'portico');
      expect(pdb.spec.minAvailable).toBe(1);
      expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
    });

    it('probes /healthz for liveness and /readyz for readiness on the serving port', () => {
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      const portName = container.ports[0].name;
      expect(container.ports[0].containerPort).toBe(8080);
      expect([container.livenessProbe.httpGet.port, container.readinessProbe.httpGet.port]).toEqual([portName, portName]);
    });

    it('is configured in-cluster with Redis and its own namespace from the downward API', () => {
      expect(env).toMatchObject({
        SERVER_ADDRESS: ':8080',
        REDIS_ADDRESS: 'portico-redis:6379',
        KUBERNETES_IN_CLUSTER: 'true',
        PORTICO_NAMESPACE: { fieldRef: { fieldPath: 'metadata.namespace' } },
      });
      expect(['debug', 'info', 'warn', 'error']).toContain(env.LOG_LEVEL);
      expect(pod.serviceAccountName).toBe('portico');
    });

    it('runs as a non-root user with a read-only root filesystem and no privileges', () => {
      const sc = container.securityContext;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(sc.runAsNonRoot).toBe(true);
      expect(sc.runAsUser ?? pod.securityContext.runAsUser).toBe(10001);
      expect(sc.readOnlyRootFilesystem).toBe(true);
      expect(sc.allowPrivilegeEscalation).toBe(false);
      expect(sc.capabilities.drop).toEqual(['ALL']);
      expect((sc.seccompProfile ?? pod.securityContext.seccompProfile).type).toBe('RuntimeDefault');
    });

    it('has resource requests and limits', () => {
      expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
      expect(container.resources.limits).toMatchObject({ memory: expect.any(String) });
    });

    it('is reached through a ClusterIP Service on port 80', () => {
      const service = find('Service', 'portico');
      expect(service.spec.type).toBe('ClusterIP');
      expect(service.spec.ports).toEqual([expect.objectContaining({ port: 80, targetPort: container.ports[0].name })]);
      for (const [k, v] of Object.entries(service.spec.selector)) expect(deployment.spec.template.metadata.labels[k]).toBe(v);
    });
  });

  describe('RBAC', () => {
    const clusterRole = find('ClusterRole', 'portico');
    const role = find('Role', 'portico');
    type Rule = { apiGroups?: string[]; resources?: string[]; verbs: string[]; nonResourceURLs?: string[] };
    const rules: Rule[] = clusterRole.rules;

    // What each rule is for is proven by the RBAC mode of the fake API server (packages/core/test/support/kube-rbac.ts):
    // the Kubernetes-mode suites run with these rules, and deploy/rbac-rules.test.ts removes each in turn. These
    // checks keep the shape least-privilege.
    it('the ClusterRole grants no wildcard verb, nothing on CRDs, never every core resource, and does not watch Secrets cluster-wide', () => {
      for (const rule of rules) {
        expect(rule.verbs).not.toContain('*');
        expect(rule.apiGroups ?? []).not.toContain('apiextensions.k8s.io');
        expect(rule.apiGroups ?? []).not.toContain('*');
        if (rule.resources?.includes('*')) expect(rule.apiGroups ?? []).not.toContain(''); // never "everything in core"
        if (rule.resources?.includes('secrets')) expect(rule.verbs).not.toContain('watch');
      }
    });

    it('the ClusterRole manages instances in the kro group and reads namespaces', () => {
      const verbsFor = (group: string, resource: string) =>
        new Set(rules.filter((r) => r.apiGroups?.includes(group) && (r.resources?.includes(resource) || r.resources?.includes('*'))).flatMap((r) => r.verbs));
      expect([...verbsFor('', 'namespaces')].sort()).toEqual(['get', 'list']);
      expect([...verbsFor('kro.run', 'webapps')].sort()).toEqual(['create', 'delete', 'get', 'list', 'patch', 'watch']);
      expect(rules.some((r) => r.nonResourceURLs?.includes('/apis/*'))).toBe(true);
    });

    it('the namespaced Role covers Projects, ConfigMaps and watching Secrets, in Portico\'s namespace only', () => {
      const byResource = Object.fromEntries((role.rules as Rule[]).flatMap((r) => (r.resources ?? []).map((res) => [res, r.verbs.slice().sort()])));
      expect(byResource).toEqual({
        projects: ['create', 'delete', 'get', 'list', 'patch', 'watch'],
        configmaps: ['create', 'delete', 'get', 'list', 'patch', 'watch'],
        secrets: ['watch'],
      });
    });

    it('binds both roles to the portico service account in the portico namespace', () => {
      for (const [kind, roleKind] of [
        ['ClusterRoleBinding', 'ClusterRole'],
        ['RoleBinding', 'Role'],
      ]) {
        const binding = find(kind, 'portico');
        expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: roleKind, name: 'portico' });
        expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'portico', namespace: 'portico' }]);
      }
      find('ServiceAccount', 'portico');
    });
  });

  describe('the quick-start Redis', () => {
    it('runs as non-root without persistence behind the portico-redis Service', () => {
      const redis = find('Deployment', 'portico-redis', 'redis');
      const pod = redis.spec.template.spec;
      const container = pod.containers[0];
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      expect(container.securityContext.runAsNonRoot).toBe(true);
      expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
      expect(container.args.join(' ')).toMatch(/--save\s+--appendonly no/);
      expect(pod.volumes.every((v: Record<string, unknown>) => 'emptyDir' in v)).toBe(true);
      const service = find('Service', 'portico-redis', 'redis');
      expect(service.spec.ports[0].port).toBe(6379);
    });
  });
});

describe('example Projects against the Project CRD schema', () => {
  const crdFile = path.join(deployDir, 'crds', 'project.yaml');
  const crd = parseFile(crdFile)[0];
  const version = crd.spec.versions.find((v: { storage: boolean }) => v.storage);

  /** Kubernetes prunes unknown fields silently; in examples that is a typo, so the test refuses them in spec. */
  const closed = (schema: AnySchemaObject): AnySchemaObject => {
    const copy: AnySchemaObject = { ...schema };
    if (copy.properties) {
      copy.properties = Object.fromEntries(Object.entries(copy.properties).map(([k, v]) => [k, closed(v as AnySchemaObject)]));
      if (!copy['x-kubernetes-preserve-unknown-fields'] && copy.additionalProperties === undefined) copy.additionalProperties = false;
    }
    if (copy.items) copy.items = closed(copy.items);
    return copy;
  };

  const ajv = new Ajv({ allErrors: true });
  for (const annotation of ['x-kubernetes-list-type', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-int-or-string', 'x-kubernetes-embedded-resource', 'x-kubernetes-validations']) {
    ajv.addKeyword({ keyword: annotation });
  }
  // A list-type "map" must not repeat its keys (e.g. two roles with one name): Kubernetes rejects that too.
  ajv.addKeyword({
    keyword: 'x-kubernetes-list-map-keys',
    type: 'array',
    validate: (keys: string[], data: Record<string, unknown>[]) => new Set(data.map((item) => JSON.stringify(keys.map((k) => item?.[k])))).size === data.length,
  });
  const schema = version.schema.openAPIV3Schema as AnySchemaObject;
  const validate = ajv.compile({ ...schema, properties: { ...schema.properties, spec: closed(schema.properties.spec) } });

  const projectFiles = [...yamlFilesIn(path.join(deployDir, 'examples')), ...yamlFilesIn(path.join(repoRoot, 'examples', 'catalog', 'projects'))];
  const projects = projectFiles.flatMap((file) => parseFile(file).filter((d) => d.kind === 'Project').map((doc) => ({ file, doc })));

  it('has two example Projects in deploy/examples', () => {
    expect(projects.filter((p) => p.file.startsWith(path.join(deployDir, 'examples')))).toHaveLength(2);
  });

  it('every example Project validates', () => {
    for (const { file, doc } of projects) {
      const ok = validate(doc);
      expect(ok, `${path.relative(repoRoot, file)}: ${ajv.errorsText(validate.errors)}`).toBe(true);
      expect(doc.metadata.namespace, path.relative(repoRoot, file)).toBe('portico');
    }
  });

  it('the schema rejects what Kubernetes would reject or silently drop', () => {
    const base = structuredClone(projects[0].doc);
    const broken = (mutate: (p: Manifest) => void) => {
      const p = structuredClone(base);
      mutate(p);
      return validate(p);
    };
    expect(validate(base)).toBe(true);
    expect(broken((p) => (p.spec.destinations = [{ namespace: 'Not_A_Namespace' }]))).toBe(false);
    expect(broken((p) => (p.spec.roles = [...p.spec.roles, { ...p.spec.roles[0] }]))).toBe(false); // duplicate role name
    expect(broken((p) => (p.spec.roles[0].policies = ['instances/*, fetch, allow']))).toBe(false);
    expect(broken((p) => (p.spec.destination = [{ namespace: 'dev' }]))).toBe(false); // typo: would be pruned
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
  const dockerignore = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8');
  // Instructions with their continuation lines joined, comments dropped.
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages = instructions.reduce<string[][]>((acc, line) => {
    if (/^FROM\s/i.test(line)) acc.push([]);
    acc.at(-1)?.push(line);
    return acc;
  }, []);
  const runtime = stages.at(-1)!;

  it('builds with npm ci and npm run build on node 20 and prunes dev dependencies', () => {
    expect(dockerfile).toMatch(/node:20-bookworm-slim/);
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages[0].join('\n')).toMatch(/RUN npm ci/);
    expect(stages[0].join('\n')).toMatch(/npm run build/);
    expect(stages[0].join('\n')).toMatch(/npm prune --omit=dev/);
  });

  const stageNamed = (name: string) => stages.find((stage) => new RegExp(`^FROM\\s+\\S+\\s+AS\\s+${name}$`, 'i').test(stage[0]))!;
  const ossStages = [stages[0], runtime];

  it('the OSS stages never copy packages/enterprise nor the whole context; the OSS runtime is the default (last) target', () => {
    expect(stages[0][0]).toMatch(/AS build$/);
    expect(runtime[0]).toMatch(/AS runtime$/);
    for (const line of ossStages.flat().filter((l) => /^(COPY|ADD)\s/i.test(l))) {
      expect(line).not.toMatch(/enterprise/);
      expect(line, 'a whole-context copy would pick up anything not ignored').not.toMatch(/^(COPY|ADD)\s+(--\S+\s+)*\.\s/i);
    }
    expect(ossStages.flat().join('\n')).not.toMatch(/for pkg in[^;]*enterprise/);
    for (const line of instructions.filter((l) => /^(COPY|ADD)\s/i.test(l))) expect(line).not.toMatch(/^(COPY|ADD)\s+(--\S+\s+)*\.\s/i);
  });

  it('the enterprise target builds in its own stages and runs portico-server-enterprise as non-root', () => {
    const build = stageNamed('build-enterprise');
    const enterprise = stageNamed('enterprise');
    expect(build.join('\n')).toMatch(/COPY packages\/enterprise packages\/enterprise/);
    expect(build.join('\n')).toMatch(/npm prune --omit=dev/);
    expect(build.join('\n')).toMatch(/migrations/);
    for (const line of enterprise.filter((l) => /^COPY\s/i.test(l))) expect(line).toMatch(/--from=build-enterprise/);
    expect(enterprise.find((l) => /^USER\s/i.test(l))).toMatch(/^USER 10001/);
    expect(enterprise.at(-1)).toBe('ENTRYPOINT ["node", "packages/enterprise/dist/bin.js"]');
    // Build output never enters the context, for either target.
    expect(dockerignore.split('\n').map((l) => l.trim())).toEqual(expect.arrayContaining(['**/node_modules', '**/dist']));
  });

  it('runs the server as a non-root user on port 8080', () => {
    const users = runtime.filter((l) => /^USER\s/i.test(l));
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)!.split(/\s+/)[1].split(':')[0];
    expect(['root', '0']).not.toContain(user);
    expect(runtime).toContain('EXPOSE 8080');
    expect(runtime.at(-1)).toBe('ENTRYPOINT ["node", "packages/server/dist/bin.js"]');
    // The runtime stage takes only assembled output from the build stage, never the sources.
    for (const line of runtime.filter((l) => /^COPY\s/i.test(l))) expect(line).toMatch(/--from=build/);
  });

  it('has git in the runtime image (gitops deployments run it), installed before dropping root, without apt lists', () => {
    const install = runtime.findIndex((l) => /^RUN\s.*apt-get install\b.*\bgit\b/.test(l));
    expect(install).toBeGreaterThanOrEqual(0);
    expect(runtime[install]).toMatch(/--no-install-recommends/);
    expect(runtime[install]).toMatch(/rm -rf \/var\/lib\/apt\/lists/);
    expect(install).toBeLessThan(runtime.findIndex((l) => /^USER\s/i.test(l)));
  });

  it('exposes the metrics port the Deployment names, and the NetworkPolicy lets only monitoring scrape it', () => {
    const container = find('Deployment', 'portico').spec.template.spec.containers[0];
    expect(container.ports).toContainEqual({ name: 'metrics', containerPort: 9090, protocol: 'TCP' });
    expect(container.env).toContainEqual({ name: 'METRICS_ADDRESS', value: ':9090' });
    const policy = find('NetworkPolicy', 'portico');
    expect(policy.spec.podSelector.matchLabels).toEqual(find('Deployment', 'portico').spec.selector.matchLabels);
    const metrics = policy.spec.ingress.find((r: any) => r.ports[0].port === 'metrics');
    expect(metrics.from).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }]);
    expect(find('Service', 'portico').spec.ports.map((p: any) => p.targetPort)).toEqual(['http']);
    const monitor = find('ServiceMonitor', 'portico', 'monitoring');
    expect(find('Service', 'portico-metrics', 'monitoring').metadata.labels).toMatchObject(monitor.spec.selector.matchLabels);
  });
});
