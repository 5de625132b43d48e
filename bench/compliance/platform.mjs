// The platform bench/compliance audits: projects (one namespace each), RGDs whose Deployment and Service take
// their image, limits, Service type and team label from the instance, instances spread over projects and RGDs
// with a realistic mix of compliant and non-compliant values, and constraints of the four native template kinds
// with varied matches, parameters and enforcement actions. Manifests are JSON documents in YAML files (JSON is
// YAML), applied by the embedded cluster at start; constraints are bodies for POST /compliance/constraints.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const MEMBER = 'bench-member';
export const pname = (i) => `team-${String(i).padStart(3, '0')}`;
/** The projects MEMBER is a developer in. */
export const memberProjects = (projects) => [0, 1, 2, 3].map((k) => pname(Math.floor((k * projects) / 4)));

const registries = ['registry.example.com/', 'registry.example.com/', 'registry.example.com/', 'registry.example.com/', 'registry.example.com/', 'registry.example.com/', 'registry.example.com/', 'registry.example.com/', 'ghcr.io/acme/', 'quay.io/partner/'];

/**
 * An RGD's values for instance `i`: what decides which constraints it breaks. Each kind of fault is rare (an
 * unapproved registry, a high CPU or memory limit, an unknown team, a NodePort), so together with the RGDs
 * that omit a limit or a label about half of the instances break some constraint.
 */
export function instanceValues(i, projects) {
  return {
    image: `${registries[i % registries.length]}app-${i % 500}:1.${i % 40}`,
    cpu: i % 10 === 0 ? '2' : ['250m', '500m', '1'][i % 3],
    memory: i % 13 === 0 ? '4Gi' : ['256Mi', '512Mi', '1Gi'][Math.floor(i / 4) % 3],
    serviceType: i % 37 === 0 ? 'NodePort' : 'ClusterIP',
    team: i % 17 === 0 ? 'unknown' : pname(i % projects),
  };
}

/** RGD r: a Deployment and a Service; every tenth sets no memory limit, every fifth gives its Deployment no team label. */
function rgd(r) {
  const limits = r % 10 === 9 ? { cpu: '${schema.spec.cpu}' } : { cpu: '${schema.spec.cpu}', memory: '${schema.spec.memory}' };
  const labels = { 'app.kubernetes.io/name': '${schema.metadata.name}', ...(r % 5 === 4 ? {} : { team: '${schema.spec.team}' }) };
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'ResourceGraphDefinition',
    metadata: { name: `bench-${r}`, annotations: { 'portico.dev/catalog': 'true', 'portico.dev/title': `Bench service ${r}`, 'portico.dev/category': 'web' } },
    spec: {
      schema: {
        apiVersion: 'v1alpha1',
        kind: `Bench${r}`,
        spec: {
          image: 'string | default="registry.example.com/app:1.0"',
          cpu: 'string | default="500m"',
          memory: 'string | default="512Mi"',
          serviceType: 'string | default="ClusterIP"',
          team: 'string | default="none"',
        },
      },
      resources: [
        {
          id: 'deployment',
          template: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: '${schema.metadata.name}', labels },
            spec: {
              replicas: 1,
              selector: { matchLabels: { 'app.kubernetes.io/name': '${schema.metadata.name}' } },
              template: {
                metadata: { labels: { 'app.kubernetes.io/name': '${schema.metadata.name}' } },
                spec: { containers: [{ name: 'app', image: '${schema.spec.image}', resources: { limits } }] },
              },
            },
          },
        },
        {
          id: 'service',
          template: {
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: '${schema.metadata.name}', labels: { 'app.kubernetes.io/name': '${schema.metadata.name}' } },
            spec: { type: '${schema.spec.serviceType}', selector: { 'app.kubernetes.io/name': '${schema.metadata.name}' }, ports: [{ port: 80 }] },
          },
        },
      ],
    },
  };
}

export async function writeManifests(dir, { projects, rgds, instances }) {
  await mkdir(dir, { recursive: true });
  const yaml = (docs) => docs.map((d) => `---\n${JSON.stringify(d)}\n`).join('');
  const member = new Set(memberProjects(projects));
  const namespaces = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'portico' } }];
  // A third of the namespaces carry the environment label namespace constraints ask for.
  for (let p = 0; p < projects; p++) namespaces.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: pname(p), labels: p % 3 === 0 ? { 'portico.dev/environment': 'prod' } : {} } });
  await writeFile(path.join(dir, '00-namespaces.yaml'), yaml(namespaces));
  const projectDocs = [];
  for (let p = 0; p < projects; p++) {
    const name = pname(p);
    projectDocs.push({
      apiVersion: 'portico.dev/v1alpha1',
      kind: 'Project',
      metadata: { name, namespace: 'portico' },
      spec: {
        description: `Team ${p}`,
        destinations: [{ namespace: name }],
        roles: [{ name: 'developer', policies: ['instances/*, *, allow', 'rgds/*, get, allow'], users: member.has(name) ? [MEMBER] : [], groups: [`${name}-devs`] }],
      },
    });
  }
  await writeFile(path.join(dir, '01-projects.yaml'), yaml(projectDocs));
  await writeFile(path.join(dir, '02-rgds.yaml'), yaml(Array.from({ length: rgds }, (_, r) => rgd(r))));
  for (let from = 0, file = 0; from < instances; from += 1000, file++) {
    const docs = [];
    for (let i = from; i < Math.min(instances, from + 1000); i++) {
      const p = i % projects;
      const r = (i * 7) % rgds;
      docs.push({
        apiVersion: 'kro.run/v1alpha1',
        kind: `Bench${r}`,
        metadata: {
          name: `app-${i}`,
          namespace: pname(p),
          labels: { 'portico.dev/project': pname(p), 'portico.dev/deployment-mode': 'direct', 'portico.dev/rgd': `bench-${r}`, ...(i % 10 === 0 ? {} : { 'cost-center': `cc-${i % 20}` }) },
          annotations: { 'portico.dev/created-by': `${pname(p)}-developer`, 'portico.dev/created-at': '2026-01-01T00:00:00Z' },
        },
        spec: instanceValues(i, projects),
      });
    }
    await writeFile(path.join(dir, `10-instances-${String(file).padStart(3, '0')}.yaml`), yaml(docs));
  }
}

/** Every k-th project namespace starting at `from`, at most `count` of them: a constraint scoped to some teams. */
const someNamespaces = (projects, from, count) => Array.from({ length: Math.min(count, projects) }, (_, k) => pname((from + k * 7) % projects)).filter((n, k, all) => all.indexOf(n) === k);

/**
 * `count` constraints over the four native template kinds, in turn: required labels (on instances, Deployments
 * or Namespaces), allowed repos, container limits, no NodePort Services. About a third are scoped to some
 * namespaces, the rest apply cluster-wide; one in ten is `deny`, two `warn`, the rest `dryrun`.
 */
export function constraintBodies(count, { projects, rgds }) {
  const bodies = [];
  for (let c = 0; c < count; c++) {
    const enforcementAction = c % 10 === 0 ? 'deny' : c % 10 <= 2 ? 'warn' : 'dryrun';
    const namespaces = c % 3 === 0 ? someNamespaces(projects, c, 5 + (c % 20)) : [];
    const deployments = { kinds: [{ apiGroups: ['apps'], kinds: ['Deployment'] }], ...(namespaces.length > 0 ? { namespaces } : {}) };
    let body;
    switch (c % 4) {
      case 0: {
        const variant = Math.floor(c / 4) % 3;
        if (variant === 0) {
          const kinds = [`Bench${c % rgds}`, `Bench${(c + 1) % rgds}`, `Bench${(c + 5) % rgds}`];
          body = { templateName: 'k8srequiredlabels', match: { kinds: [{ apiGroups: ['kro.run'], kinds: [...new Set(kinds)] }], namespaces }, parameters: { labels: [{ key: 'cost-center', allowedRegex: `^cc-(1?[0-9])$` }] } };
        } else if (variant === 1) {
          body = { templateName: 'k8srequiredlabels', match: deployments, parameters: { labels: [{ key: 'team', allowedRegex: '^team-[0-9]+$' }, { key: 'app.kubernetes.io/name' }] } };
        } else {
          body = { templateName: 'k8srequiredlabels', match: { kinds: [{ apiGroups: [''], kinds: ['Namespace'] }] }, parameters: { labels: [{ key: 'portico.dev/environment', allowedRegex: '^(dev|staging|prod)$' }] } };
        }
        break;
      }
      case 1:
        body = { templateName: 'k8sallowedrepos', match: deployments, parameters: { repos: c % 8 === 1 ? ['registry.example.com/'] : ['registry.example.com/', 'ghcr.io/acme/', 'docker.io/library/'] } };
        break;
      case 2:
        body = { templateName: 'k8scontainerlimits', match: deployments, parameters: { cpu: ['1', '2', '4'][c % 3], memory: ['1Gi', '2Gi', '8Gi'][c % 3] } };
        break;
      default:
        body = { templateName: 'k8sblocknodeport', match: { kinds: [{ apiGroups: [''], kinds: ['Service'] }], namespaces } };
    }
    bodies.push({ name: `bench-${c % 4}-${String(c).padStart(3, '0')}`, enforcementAction, ...body, labels: { 'portico.dev/bench': 'compliance' } });
  }
  return bodies;
}
