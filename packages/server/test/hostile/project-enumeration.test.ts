import { beforeAll, describe, expect, it } from 'vitest';
import { apiAs, createProject, createUser, uniqueName, type ApiAs, type Reply, type TestUser } from '../support/api-as.js';
import { useServer } from '../support/cluster-modes.js';

/**
 * Issue 15: a signed-in user with no role in a project must not learn that it exists. Every project route
 * answers exactly as for a project that does not exist: same status, same body (but for the name asked about
 * and the request id), and about the same time.
 */
describe('project names cannot be enumerated', () => {
  const { tp } = useServer('embedded');
  let outsider: TestUser;
  let viewer: TestUser;
  let existing: string;

  beforeAll(async () => {
    existing = await createProject(tp, 'secret');
    outsider = await createUser(tp, 'outsider');
    viewer = await createUser(tp, 'viewer');
    const bound = await apiAs(tp.url, tp.adminToken).post(`/api/v1/projects/${existing}/roles/viewer/users/${viewer.username}`);
    expect(bound.status).toBe(201);
  });

  /** Every route about one project, as (caller, project) → response. */
  const projectRoutes: Record<string, (as: ApiAs, project: string) => Promise<Reply>> = {
    get: (as, p) => as.get(`/api/v1/projects/${p}`),
    update: (as, p) => as.put(`/api/v1/projects/${p}`, { resourceVersion: '1', description: 'taken over' }),
    delete: (as, p) => as.del(`/api/v1/projects/${p}`),
    namespaces: (as, p) => as.get(`/api/v1/projects/${p}/namespaces`),
    roleBindings: (as, p) => as.get(`/api/v1/projects/${p}/role-bindings`),
    bindUser: (as, p) => as.post(`/api/v1/projects/${p}/roles/platform-admin/users/intruder`),
    unbindUser: (as, p) => as.del(`/api/v1/projects/${p}/roles/platform-admin/users/intruder`),
    bindGroup: (as, p) => as.post(`/api/v1/projects/${p}/roles/platform-admin/groups/intruders`),
    unbindGroup: (as, p) => as.del(`/api/v1/projects/${p}/roles/platform-admin/groups/intruders`),
    canI: (as, p) => as.get(`/api/v1/account/can-i/instances/get/${p}`),
  };

  /** The body with what legitimately differs (the name asked about, the request id) blanked out. */
  const comparable = (reply: Reply, project: string) => ({
    status: reply.status,
    body: JSON.parse(JSON.stringify({ ...reply.body, requestId: undefined }).replaceAll(project, '<project>')),
  });

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  it.each(Object.keys(projectRoutes))('%s: an outsider gets the same 404 for an existing and a missing project', async (route) => {
    const call = projectRoutes[route];
    const missing = uniqueName('secret');
    const forExisting = await call(outsider, existing);
    const forMissing = await call(outsider, missing);
    expect(forExisting.status).toBe(404);
    expect(forExisting.body.code).toBe('NOT_FOUND');
    expect(comparable(forExisting, existing)).toEqual(comparable(forMissing, missing));
  });

  /** Median times of interleaved calls (ABBA) for the existing and a missing project, so load drifts hit both alike. */
  async function medians(call: (as: ApiAs, project: string) => Promise<Reply>, samples = 25) {
    const missing = uniqueName('secret');
    const times: Record<'existing' | 'missing', number[]> = { existing: [], missing: [] };
    const pair = [['existing', existing], ['missing', missing]] as const;
    for (let i = 0; i < samples; i++) {
      // Alternate which goes first, so a cost the first call of a pair pays (a wake-up, a GC) falls on both.
      for (const [which, project] of i % 2 === 0 ? pair : [...pair].reverse()) {
        const started = performance.now();
        await call(outsider, project);
        times[which].push(performance.now() - started);
      }
    }
    return { existing: median(times.existing), missing: median(times.missing) };
  }

  it('an outsider cannot tell the two apart by timing either (median of interleaved samples)', async () => {
    for (const [route, call] of Object.entries(projectRoutes)) {
      // Both answers come from one in-memory lookup: a real difference (a cluster read for one of them) shows
      // in every round; a busy machine's noise does not, so a route gets three rounds before it counts.
      let last = '';
      let alike = false;
      for (let round = 0; round < 3 && !alike; round++) {
        const m = await medians(call);
        alike = Math.abs(m.existing - m.missing) < Math.max(5, 0.5 * Math.max(m.existing, m.missing));
        last = `${route}: existing ${m.existing.toFixed(2)} ms vs missing ${m.missing.toFixed(2)} ms`;
      }
      expect(alike, last).toBe(true);
    }
  });

  it('the project is still there and unchanged after every attempt', async () => {
    const admin = apiAs(tp.url, tp.adminToken);
    const project = await admin.get(`/api/v1/projects/${existing}`);
    expect(project.status).toBe(200);
    expect(project.body.description).not.toBe('taken over');
    expect((await admin.get(`/api/v1/projects/${existing}/role-bindings`)).body.bindings).toEqual([
      { role: 'viewer', type: 'user', subject: viewer.username },
    ]);
  });

  it('a member who lacks a permission still gets 403, not 404', async () => {
    const { resourceVersion } = (await viewer.get(`/api/v1/projects/${existing}`)).body;
    const update = await viewer.put(`/api/v1/projects/${existing}`, { resourceVersion, description: 'taken over' });
    expect([update.status, update.body.code]).toEqual([403, 'FORBIDDEN']);
    for (const route of ['delete', 'bindUser', 'unbindUser', 'bindGroup', 'unbindGroup'] as const) {
      const reply = await projectRoutes[route](viewer, existing);
      expect(reply.status, route).toBe(403);
      expect(reply.body.code).toBe('FORBIDDEN');
    }
    expect((await projectRoutes.get(viewer, existing)).status).toBe(200);
    expect((await projectRoutes.canI(viewer, existing)).body).toEqual({ value: 'yes' });
  });

  it('a new project name is still refused with 409 only to callers who may create projects', async () => {
    const create = await outsider.post('/api/v1/projects', { name: existing, destinations: [{ namespace: 'dev' }] });
    expect(create.status).toBe(403);
  });
});
