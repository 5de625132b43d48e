import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '@portico/core';
import { apiAs, createUser, uniqueName, type ApiAs, type Reply } from '../support/api-as.js';
import { clusterModes, startPorticoServer, type PorticoServer } from '../support/cluster-modes.js';

/**
 * Projects managed declaratively (kubectl, GitOps): the Project document is applied to the cluster by another
 * client — in Kubernetes mode a POST/PATCH/DELETE to the API server, never a call to Portico — and Portico's
 * watch turns it into policy. A change applies from the first request after Portico's watch delivered it (a
 * few milliseconds here; Portico cannot know of it sooner), so the tests wait for that first request, then
 * check that every later one agrees.
 */
describe.each(clusterModes)('projects applied with kubectl (%s cluster)', (mode) => {
  let tp: PorticoServer;

  beforeAll(async () => {
    tp = await startPorticoServer({ mode });
  });
  afterAll(async () => {
    await tp?.close();
  });

  const projectYaml = (name: string, developers: string[]) => `
apiVersion: portico.dev/v1alpha1
kind: Project
metadata:
  name: ${name}
  namespace: portico
spec:
  description: applied with kubectl
  destinations:
    - namespace: dev
  roles:
    - name: developer
      policies: ["instances/*, *, allow", "rgds/*, get, allow"]
      users: [${developers.join(', ')}]
      groups: []
    - name: viewer
      policies: ["instances/*, get, allow", "rgds/*, get, allow"]
      users: []
      groups: []
`;

  /** Repeats `request` until `done` holds (the watch delivered the change), then once more to see it stays. */
  async function firstAnswer(request: () => Promise<Reply>, done: (r: Reply) => boolean, what: string): Promise<Reply> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const reply = await request();
      if (done(reply)) {
        const again = await request();
        expect(done(again)).toBe(true);
        return again;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  const canCreate = async (user: ApiAs, project: string) => (await user.get(`/api/v1/account/can-i/instances/create/${project}`)).body?.value;

  it('a Project applied as YAML is enforced; an edit revokes; a delete stops granting access', async () => {
    const member = await createUser(tp, 'yaml-dev');
    const outsider = await createUser(tp, 'yaml-out');
    const name = uniqueName('declared');
    const requestsBefore = tp.api?.requests.length ?? 0;

    const [applied] = await tp.apply(projectYaml(name, [member.username]));
    expect(applied.metadata).toMatchObject({ name, namespace: 'portico' });
    if (tp.api) {
      // It went to the API server as kubectl sends it: a POST of the document.
      const posts = tp.api.requests.slice(requestsBefore).filter((r) => r.method === 'POST' && r.path.endsWith('/namespaces/portico/projects'));
      expect(posts.map((r) => (r.body as { metadata: { name: string } }).metadata.name)).toEqual([name]);
    }

    const project = await firstAnswer(() => member.get(`/api/v1/projects/${name}`), (r) => r.status === 200, 'the member to see the project');
    expect(project.body).toMatchObject({ name, description: 'applied with kubectl', destinations: [{ namespace: 'dev' }] });
    expect(await canCreate(member, name)).toBe('yes');
    expect((await member.get('/api/v1/projects')).body.items.map((p: { name: string }) => p.name)).toEqual([name]);
    expect((await outsider.get(`/api/v1/projects/${name}`)).status).toBe(404);
    const created = await member.post('/api/v1/namespaces/dev/instances/WebApp', { name: `app-${name}`, project: name, values: { image: 'nginx' } });
    expect(created.status).toBe(201);
    const elsewhere = await member.post('/api/v1/namespaces/staging/instances/WebApp', { name: `x-${name}`, project: name, values: { image: 'nginx' } });
    expect([elsewhere.status, elsewhere.body.details.allowed]).toEqual([403, ['dev']]);

    // kubectl apply of an edited file: the member is no longer in the developer role.
    await tp.apply(projectYaml(name, []));
    await firstAnswer(() => member.get(`/api/v1/projects/${name}`), (r) => r.status === 404, 'the edit to revoke access');
    expect((await member.get(`/api/v1/account/can-i/instances/create/${name}`)).status).toBe(404);
    const refused = await member.post('/api/v1/namespaces/dev/instances/WebApp', { name: `late-${name}`, project: name, values: { image: 'nginx' } });
    expect(refused.status).toBe(403);

    // Bound again, then the whole project deleted with kubectl.
    await tp.apply(projectYaml(name, [member.username]));
    await firstAnswer(() => member.get(`/api/v1/projects/${name}`), (r) => r.status === 200, 'the member to be back');
    await tp.remove({ apiVersion: 'portico.dev/v1alpha1', kind: 'Project', metadata: { name, namespace: 'portico' } });
    const gone = await firstAnswer(() => member.get(`/api/v1/projects/${name}`), (r) => r.status === 404, 'the deletion to stop access');
    expect(gone.body.code).toBe('NOT_FOUND');
    expect((await member.get('/api/v1/projects')).body).toEqual({ items: [], totalCount: 0 });
    expect((await member.get(`/api/v1/account/can-i/instances/create/${name}`)).status).toBe(404);
    expect((await member.get('/api/v1/account')).body.projects).toEqual([]);
  });

  it('the admin sees a kubectl-applied project like any other and can bind users to it through Portico', async () => {
    const name = uniqueName('gitops');
    await tp.apply(projectYaml(name, []));
    const admin = apiAs(tp.url, tp.adminToken);
    await firstAnswer(() => admin.get(`/api/v1/projects/${name}`), (r) => r.status === 200, 'the admin to see the project');
    const user = await createUser(tp, 'late-bound');
    expect((await admin.post(`/api/v1/projects/${name}/roles/viewer/users/${user.username}`)).status).toBe(201);
    expect((await user.get(`/api/v1/projects/${name}`)).status).toBe(200);

    // The binding Portico made lives in the resource, where kubectl sees it.
    const stored = await tp.kubectl.get(resources.project, name, 'portico');
    const viewer = (stored?.spec.roles as { name: string; users: string[] }[]).find((r) => r.name === 'viewer');
    expect(viewer?.users).toEqual([user.username]);
  });
});
