import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiAs, createUser, uniqueName, type ApiAs } from '../support/api-as.js';
import { startPorticoServer, type PorticoServer } from '../support/cluster-modes.js';

/**
 * A real server on the Kubernetes adapter while the API server misbehaves: /readyz tells the truth (503 naming the
 * failing components while Portico cannot reach the API or its watches are broken, 200 once it has caught up), and
 * what changed in the cluster meanwhile is served afterwards.
 */

interface Readyz {
  status: number;
  body: { status: string; components: Record<string, { ok: boolean; message?: string }> };
}

const readyz = async (url: string): Promise<Readyz> => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: await res.json() };
};

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The components failing, sorted. */
const failing = (r: Readyz) => Object.entries(r.body.components).filter(([, c]) => !c.ok).map(([name]) => name).sort();

const projectYaml = (name: string, developers: string[]) => `
apiVersion: portico.dev/v1alpha1
kind: Project
metadata: {name: ${name}, namespace: portico}
spec:
  description: made during an outage
  destinations: [{namespace: dev}]
  roles:
    - {name: developer, policies: ["instances/*, *, allow", "rgds/*, get, allow"], users: [${developers.join(', ')}], groups: []}
`;

describe('readiness on the Kubernetes adapter while the API server misbehaves', () => {
  let tp: PorticoServer;
  let admin: ApiAs;

  beforeAll(async () => {
    tp = await startPorticoServer({ mode: 'kubernetes' });
    admin = apiAs(tp.url, tp.adminToken);
  });
  afterEach(async () => {
    tp.api!.partition(tp.apiClientName!, false);
    await tp.api!.setDown(false);
    await eventually(() => readyz(tp.url), (r) => r.status === 200, 'readiness after the test');
  });
  afterAll(async () => {
    await tp?.close();
  });

  it('is ready with every component healthy', async () => {
    const r = await eventually(() => readyz(tp.url), (x) => x.status === 200, 'readiness');
    expect(r.body.status).toBe('ok');
    expect(Object.keys(r.body.components)).toEqual(expect.arrayContaining(['cluster', 'watch:projects', 'watch:rgds', 'keyvalue']));
  });

  it('cut off from the API: 503 naming the cluster and the watches; afterwards serves what changed meanwhile, history compaction included', async () => {
    const user = await createUser(tp, 'outage');
    const before = uniqueName('before');
    await tp.apply(projectYaml(before, [user.username]));
    await eventually(() => user.get(`/api/v1/projects/${before}`), (r) => r.status === 200, 'the first project');

    tp.api!.partition(tp.apiClientName!, true);
    // A dropped watch alone is routine; the reconnection attempt failing is what marks the cluster unreachable.
    const down = await eventually(() => readyz(tp.url), (r) => r.status === 503 && failing(r).includes('cluster'), 'readiness to fail');
    expect(down.body.status).toBe('unavailable');
    expect(down.body.components.cluster.message).toBeTruthy();
    // The watches are named too (each is reconnecting, with backoff).
    const watches = await eventually(() => readyz(tp.url), (r) => failing(r).includes('watch:projects') && failing(r).includes('watch:rgds'), 'the watches to be named');
    expect(watches.body.components['watch:projects'].message).toMatch(/reconnecting/);
    // ... and it stays unready for as long as the outage lasts.
    for (let i = 0; i < 10; i++) {
      const r = await readyz(tp.url);
      expect([r.status, failing(r).includes('cluster')]).toEqual([503, true]);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }

    // Writes that need the API answer 503 with Retry-After; reads are served from what Portico knows.
    const write = await fetch(`${tp.url}/api/v1/projects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tp.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: uniqueName('refused'), description: '', destinations: [{ namespace: 'dev' }] }),
    });
    expect(write.status).toBe(503);
    expect(write.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await user.get(`/api/v1/projects/${before}`)).status).toBe(200);

    // Meanwhile kubectl (still connected) changes the cluster, and the API server compacts its history, so
    // Portico's watch cannot resume where it stopped (410) and must relist.
    const during = uniqueName('during');
    await tp.apply(projectYaml(during, [user.username]));
    await tp.remove({ apiVersion: 'portico.dev/v1alpha1', kind: 'Project', metadata: { name: before, namespace: 'portico' } });
    tp.api!.expireHistory();
    expect((await readyz(tp.url)).status).toBe(503);

    const healedAt = tp.api!.requests.length;
    tp.api!.partition(tp.apiClientName!, false);
    const up = await eventually(() => readyz(tp.url), (r) => r.status === 200, 'readiness to recover');
    expect(failing(up)).toEqual([]);
    await eventually(() => user.get(`/api/v1/projects/${during}`), (r) => r.status === 200, 'the project made during the outage');
    expect((await user.get(`/api/v1/projects/${before}`)).status).toBe(404);
    // It relisted: resuming the watch from its last version was refused (410), the history being gone.
    const relists = tp.api!.requests.slice(healedAt).filter((r) => r.client === tp.apiClientName && r.method === 'GET' && !r.watch && r.path === '/apis/portico.dev/v1alpha1/namespaces/portico/projects');
    expect(relists.length).toBeGreaterThan(0);
    expect((await user.get('/api/v1/projects')).body.items.map((p: { name: string }) => p.name)).toEqual([during]);
    const created = await admin.post('/api/v1/projects', { name: uniqueName('after'), description: '', destinations: [{ namespace: 'dev' }] });
    expect(created.status).toBe(201);
  });

  it('the whole API server down: 503 while it is down, 200 once it is back, with the instance index caught up', async () => {
    const user = await createUser(tp, 'down');
    const project = uniqueName('down');
    await tp.apply(projectYaml(project, [user.username]));
    await eventually(() => user.get(`/api/v1/projects/${project}`), (r) => r.status === 200, 'the project');

    await tp.api!.setDown(true);
    const down = await eventually(() => readyz(tp.url), (r) => r.status === 503 && failing(r).includes('cluster'), 'readiness to fail');
    expect(down.body.components.cluster.message).toMatch(/ECONNREFUSED|reach|connect/i);

    await tp.api!.setDown(false);
    await eventually(() => readyz(tp.url), (r) => r.status === 200, 'readiness to recover');
    // Instances work again end to end: created through Portico, walked by kro, reported Healthy.
    const created = await user.post('/api/v1/namespaces/dev/instances/WebApp', { name: `after-${project}`, project, values: { image: 'nginx' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await eventually(
      () => user.get(`/api/v1/namespaces/dev/instances/WebApp/after-${project}`),
      (r) => r.body?.health === 'Healthy',
      'the instance to be Healthy',
    );
  });

  it('a replica starting while the API server is down waits for it, then serves', async () => {
    await tp.api!.setDown(true);
    let replica: PorticoServer | undefined;
    const starting = startPorticoServer({ mode: 'kubernetes', join: tp, adminPassword: tp.adminPassword }).then((r) => (replica = r));
    try {
      await new Promise((r) => setTimeout(r, 500));
      expect(replica).toBeUndefined();
      await tp.api!.setDown(false);
      await starting;
      const r = await eventually(() => readyz(replica!.url), (x) => x.status === 200, 'the replica to be ready');
      expect(failing(r)).toEqual([]);
      expect((await apiAs(replica!.url, replica!.adminToken).get('/api/v1/rgds/count')).body.count).toBeGreaterThan(0);
    } finally {
      await tp.api!.setDown(false);
      await starting.catch(() => undefined);
      await replica?.close();
    }
  });
});
