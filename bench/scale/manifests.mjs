// Generates the manifests of a platform at scale: RGDs (a tenth of them private to a project), projects with the
// three conventional roles, and instances spread over projects and kinds. Written as JSON documents in YAML
// files (JSON is YAML), one file per 1,000 instances.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const MEMBER = 'bench-member';
export const pname = (i) => `team-${String(i).padStart(3, '0')}`;
const categories = ['web', 'databases', 'messaging', 'observability', 'storage', 'security', 'ml', 'networking'];
const tags = ['api', 'http', 'grpc', 'cache', 'sql', 'queue', 'batch', 'stream', 'metrics', 'backup'];
const healthStates = ['ACTIVE', 'ACTIVE', 'ACTIVE', 'IN_PROGRESS', 'ERROR'];

/** The projects `MEMBER` is a developer in. */
export const memberProjects = (projects) => [0, 1, 2, 3].map((k) => pname(Math.floor((k * projects) / 4)));

export async function writeManifests(dir, { rgds, projects, instances }) {
  await mkdir(dir, { recursive: true });
  const yaml = (docs) => docs.map((d) => `---\n${JSON.stringify(d)}\n`).join('');
  const member = new Set(memberProjects(projects));

  const namespaces = [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'portico' } }];
  for (let p = 0; p < projects; p++) namespaces.push({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: pname(p) } });
  await writeFile(path.join(dir, '00-namespaces.yaml'), yaml(namespaces));

  const projectDocs = [];
  for (let p = 0; p < projects; p++) {
    const name = pname(p);
    const users = (role) => [...Array.from({ length: 5 }, (_, i) => `${name}-${role}-${i}`), ...(role === 'developer' && member.has(name) ? [MEMBER] : [])];
    projectDocs.push({
      apiVersion: 'portico.dev/v1alpha1',
      kind: 'Project',
      metadata: { name, namespace: 'portico' },
      spec: {
        description: `Team ${p}`,
        destinations: [{ namespace: name }],
        roles: [
          { name: 'platform-admin', policies: ['instances/*, *, allow', 'secrets/*, *, allow', 'rgds/*, *, allow', 'members/*, *, allow'], users: users('platform-admin'), groups: [] },
          { name: 'developer', policies: ['instances/*, *, allow', 'rgds/*, get, allow'], users: users('developer'), groups: [`${name}-devs`] },
          { name: 'viewer', policies: ['instances/*, get, allow', 'rgds/*, get, allow'], users: users('viewer'), groups: [] },
        ],
      },
    });
  }
  await writeFile(path.join(dir, '01-projects.yaml'), yaml(projectDocs));

  const rgdDocs = [];
  for (let r = 0; r < rgds; r++) {
    const annotations = {
      'portico.dev/catalog': 'true',
      'portico.dev/title': `Service ${r}`,
      'portico.dev/description': `Generated service template number ${r} for the scale benchmark.`,
      'portico.dev/category': categories[r % categories.length],
      'portico.dev/tags': [tags[r % tags.length], tags[(r * 7 + 3) % tags.length]].join(', '),
    };
    const labels = r % 10 === 9 ? { 'portico.dev/project': pname(r % projects) } : {};
    rgdDocs.push({
      apiVersion: 'kro.run/v1alpha1',
      kind: 'ResourceGraphDefinition',
      metadata: { name: `svc-${r}`, labels, annotations },
      spec: {
        schema: { apiVersion: 'v1alpha1', kind: `Svc${r}`, spec: { image: 'string | default="nginx"', replicas: 'integer | default=1' } },
        resources: [{ id: 'deployment', template: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: '${schema.metadata.name}' } } }],
      },
    });
  }
  await writeFile(path.join(dir, '02-rgds.yaml'), yaml(rgdDocs));

  const createdAt = Date.parse('2026-01-01T00:00:00Z');
  for (let from = 0, file = 0; from < instances; from += 1000, file++) {
    const docs = [];
    for (let i = from; i < Math.min(instances, from + 1000); i++) {
      const p = i % projects;
      const r = (i * 13) % rgds;
      docs.push({
        apiVersion: 'kro.run/v1alpha1',
        kind: `Svc${r}`,
        metadata: {
          name: `app-${i}`,
          namespace: pname(p),
          labels: { 'portico.dev/project': pname(p), 'portico.dev/deployment-mode': 'direct', 'portico.dev/rgd': `svc-${r}` },
          annotations: {
            'portico.dev/created-by': `${pname(p)}-developer-${i % 5}`,
            'portico.dev/created-at': new Date(createdAt + i * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
            ...(healthStates[i % healthStates.length] === 'ERROR' ? { 'portico.dev/simulate-failure': 'deployment' } : {}),
          },
        },
        spec: { image: `registry.example.com/app-${i}:1.${i % 40}`, replicas: 1 + (i % 3) },
      });
    }
    await writeFile(path.join(dir, `10-instances-${String(file).padStart(3, '0')}.yaml`), yaml(docs));
  }
}
