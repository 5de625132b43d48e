import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PorticoError } from '../../src/errors.js';
import type { CreateInstanceInput, InstanceKey } from '../../src/types.js';
import { resources } from '../../src/ports/cluster.js';
import { actors, patchProject, projects, rgd, startWorld, waitUntil, type World } from './world.js';
import { jsonText } from '../../src/json-text.js';

const run = promisify(execFile);

/** The PorticoError a promise (or function) fails with. */
async function failure(work: Promise<unknown> | (() => unknown)): Promise<PorticoError> {
  try {
    await (typeof work === 'function' ? work() : work);
  } catch (err) {
    expect(err).toBeInstanceOf(PorticoError);
    return err as PorticoError;
  }
  throw new Error('expected a PorticoError');
}

/** A list query that fits every instance of these tests on one page, by name. */
const allOnOnePage = { page: 1, pageSize: 500, sortBy: 'name', sortOrder: 'asc' } as const;

const webapp = (name: string, extra: Partial<CreateInstanceInput> = {}): CreateInstanceInput => ({
  name,
  namespace: 'dev',
  project: 'alpha',
  kind: 'WebApp',
  values: { image: 'nginx:1.27' },
  ...extra,
});

const healthy = (world: World, key: InstanceKey) =>
  waitUntil(() => {
    try {
      return world.instances.get(actors.admin, key).health === 'Healthy';
    } catch {
      return false;
    }
  }, 10_000, `${key.name} to become Healthy`);

describe('instances', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  describe('creation checks, in contract order', () => {
    beforeAll(async () => {
      await world.instances.create(actors.alice, webapp('taken'));
    });

    // Each row fixes the previous failure and leaves every later check still failing, so a row passes only if
    // its check runs before all later ones.
    const wrong: CreateInstanceInput = {
      name: 'taken',
      namespace: 'prod',
      project: 'ghost',
      kind: 'Nope',
      values: { replicas: 'three' },
      deploymentMode: 'canary',
    };

    it('unknown project: 403 for a non-admin, 404 naming it for a Server Admin', async () => {
      const asUser = await failure(world.instances.create(actors.alice, wrong));
      expect([asUser.status, asUser.code]).toEqual([403, 'FORBIDDEN']);
      const asAdmin = await failure(world.instances.create(actors.admin, wrong));
      expect([asAdmin.status, asAdmin.code]).toEqual([404, 'NOT_FOUND']);
      expect(asAdmin.details).toEqual({ resource: 'project', identifier: 'ghost' });
    });

    it('no create permission in the project: 403', async () => {
      const err = await failure(world.instances.create(actors.vic, { ...wrong, project: 'alpha' }));
      expect([err.status, err.code]).toEqual([403, 'FORBIDDEN']);
      // a member of another project, too
      const other = await failure(world.instances.create(actors.bob, { ...wrong, project: 'alpha' }));
      expect(other.status).toBe(403);
    });

    it('namespace outside the destinations: 403 listing the allowed destinations', async () => {
      const err = await failure(world.instances.create(actors.alice, { ...wrong, project: 'alpha' }));
      expect([err.status, err.code]).toEqual([403, 'FORBIDDEN']);
      expect(err.details.allowed).toEqual(['dev', 'team-a-*']);
    });

    it('unknown kind: 404; an RGD of another project: 404; an inactive RGD: 409', async () => {
      const base = { ...wrong, project: 'alpha', namespace: 'dev' };
      const unknown = await failure(world.instances.create(actors.alice, base));
      expect([unknown.status, unknown.code]).toEqual([404, 'NOT_FOUND']);
      expect(unknown.details.resource).toBe('rgd');
      const hidden = await failure(world.instances.create(actors.alice, { ...base, kind: undefined, rgdName: 'beta-app' }));
      expect(hidden.status).toBe(404);
      const inactive = await failure(world.instances.create(actors.alice, { ...base, kind: 'BrokenApp' }));
      expect([inactive.status, inactive.code]).toEqual([409, 'CONFLICT']);
    });

    it('kind in the path not the RGD’s kind: 400', async () => {
      const err = await failure(world.instances.create(actors.alice, { ...wrong, project: 'alpha', namespace: 'dev', kind: 'Tenant', rgdName: 'webapp' }));
      expect([err.status, err.code]).toEqual([400, 'BAD_REQUEST']);
    });

    it('namespaced kind without a namespace, cluster-scoped kind with one: 400', async () => {
      const noNamespace = await failure(world.instances.create(actors.alice, { ...wrong, project: 'alpha', namespace: '', kind: 'WebApp' }));
      expect([noNamespace.status, noNamespace.code]).toEqual([400, 'BAD_REQUEST']);
      const withNamespace = await failure(
        world.instances.create(actors.alice, { ...wrong, project: 'alpha', namespace: 'dev', kind: 'Tenant', values: { quota: 'x' } }),
      );
      expect([withNamespace.status, withNamespace.code]).toEqual([400, 'BAD_REQUEST']);
    });

    it('values of the wrong type: 400 VALIDATION_FAILED naming the field', async () => {
      const err = await failure(world.instances.create(actors.alice, { ...wrong, project: 'alpha', namespace: 'dev', kind: 'WebApp' }));
      expect([err.status, err.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect(err.details.fields).toMatchObject({ 'spec.replicas': expect.stringContaining('integer') });
    });

    it('lists every bad field at once', async () => {
      const err = await failure(
        world.instances.create(actors.alice, webapp('many', { values: { replicas: 0, tier: 'gpu', port: 'http' } })),
      );
      expect(Object.keys(err.details.fields as object).sort()).toEqual(['spec.image', 'spec.port', 'spec.replicas', 'spec.tier']);
    });

    it('unknown deployment mode: 400; a mode the RGD does not allow: 422 with the allowed ones', async () => {
      const fixed = { ...wrong, project: 'alpha', namespace: 'dev', kind: 'WebApp', values: { image: 'nginx' } };
      const unknown = await failure(world.instances.create(actors.alice, fixed));
      expect([unknown.status, unknown.code]).toEqual([400, 'BAD_REQUEST']);
      const notAllowed = await failure(
        world.instances.create(actors.alice, { ...fixed, kind: 'DirectApp', values: {}, deploymentMode: 'gitops' }),
      );
      expect([notAllowed.status, notAllowed.code]).toEqual([422, 'DEPLOYMENT_MODE_NOT_ALLOWED']);
      expect(notAllowed.details.allowed).toEqual(['direct']);
      expect(notAllowed.details).toMatchObject({ requestedMode: 'gitops', allowedModes: ['direct'] });
    });

    it('a Git mode without a repository (none asked for, no development default): 400 naming repositoryId', async () => {
      const err = await failure(world.instances.create(actors.alice, webapp('git-less', { deploymentMode: 'hybrid' })));
      expect([err.status, err.code]).toEqual([400, 'BAD_REQUEST']);
      expect(err.details).toMatchObject({ repositoryId: 'required', deploymentMode: 'hybrid', project: 'alpha' });
      expect(err.message).toBe('deployment mode "hybrid" needs a GitOps repository: give repositoryId, a repository of project "alpha"');
    });

    it('a name in use: 409', async () => {
      const err = await failure(world.instances.create(actors.alice, webapp('taken', { deploymentMode: 'direct' })));
      expect([err.status, err.code]).toEqual([409, 'CONFLICT']);
    });
  });

  describe('the three creation forms reach Healthy', () => {
    it('namespaced (Form A), with defaults applied and Portico labels', async () => {
      const created = await world.instances.create(actors.alice, webapp('shop'));
      expect(created).toMatchObject({
        name: 'shop',
        namespace: 'dev',
        isClusterScoped: false,
        project: 'alpha',
        rgdName: 'webapp',
        apiVersion: 'kro.run/v1alpha1',
        kind: 'WebApp',
        deploymentMode: 'direct',
        createdBy: 'alice',
        spec: { image: 'nginx:1.27', replicas: 2, port: 8080, tier: 'web' },
        labels: { 'portico.dev/project': 'alpha', 'portico.dev/deployment-mode': 'direct', 'portico.dev/rgd': 'webapp' },
      });
      expect(created.uid).not.toBe('');
      await healthy(world, { namespace: 'dev', kind: 'WebApp', name: 'shop' });
      const stored = world.instances.get(actors.alice, { namespace: 'dev', kind: 'WebApp', name: 'shop' });
      expect(stored.status.state).toBe('ACTIVE');
      expect(stored.conditions.find((c) => c.type === 'Ready')?.status).toBe('True');
    });

    it('cluster-scoped (Form A with no namespace)', async () => {
      const created = await world.instances.create(actors.alice, {
        name: 'acme',
        namespace: '',
        project: 'alpha',
        kind: 'Tenant',
        values: { owner: 'alice' },
      });
      expect(created).toMatchObject({ namespace: '', isClusterScoped: true, spec: { owner: 'alice', quota: 10 } });
      await healthy(world, { namespace: '', kind: 'Tenant', name: 'acme' });
    });

    it('flat (Form B by rgdName), into a namespace matched by a destination pattern', async () => {
      const created = await world.instances.create(actors.alice, {
        name: 'flat',
        namespace: 'team-a-one',
        project: 'alpha',
        rgdName: 'webapp',
        values: { image: 'busybox' },
      });
      expect(created.kind).toBe('WebApp');
      await healthy(world, { namespace: 'team-a-one', kind: 'WebApp', name: 'flat' });
    });
  });

  describe('reads', () => {
    beforeAll(async () => {
      for (const name of ['alpha-one', 'alpha-two', 'Alpha-three'.toLowerCase()]) await world.instances.create(actors.alice, webapp(name));
      await world.instances.create(actors.bob, { name: 'beta-one', namespace: 'beta', project: 'beta', kind: 'WebApp', values: { image: 'x' } });
    });

    it('a member of another project sees nothing of alpha: empty list, zero count, 404 on get', async () => {
      const list = world.instances.list(actors.bob, { page: 1, pageSize: 100, sortBy: 'name', sortOrder: 'asc' });
      expect(list.items.map((i) => i.project)).toEqual(['beta']);
      expect(list.totalCount).toBe(1);
      expect(world.instances.count(actors.bob)).toEqual({ count: 1 });
      expect(world.instances.list(actors.bob, { project: 'alpha', page: 1, pageSize: 20, sortBy: 'name', sortOrder: 'asc' }).totalCount).toBe(0);
      const err = await failure(() => world.instances.get(actors.bob, { namespace: 'dev', kind: 'WebApp', name: 'alpha-one' }));
      expect([err.status, err.code]).toEqual([404, 'NOT_FOUND']);
      expect(world.instances.count(actors.nobody)).toEqual({ count: 0 });
    });

    it('an admin sees every project; a viewer sees the project it views', () => {
      const all = world.instances.list(actors.admin, allOnOnePage);
      expect(new Set(all.items.map((i) => i.project))).toEqual(new Set(['alpha', 'beta']));
      const viewer = world.instances.list(actors.vic, allOnOnePage);
      expect(viewer.items.every((i) => i.project === 'alpha')).toBe(true);
      expect(viewer.totalCount).toBe(world.instances.count(actors.alice).count);
    });

    it('filters, sorts and pages; totalCount counts matches, not the page', () => {
      const q = { page: 2, pageSize: 1, sortBy: 'name' as const, sortOrder: 'desc' as const, search: 'ALPHA-', kind: 'WebApp' };
      const page = world.instances.list(actors.alice, q);
      expect(page.totalCount).toBe(3);
      expect(page.items.map((i) => i.name)).toEqual(['alpha-three']);
      expect(page).toMatchObject({ page: 2, pageSize: 1 });
      const none = world.instances.list(actors.alice, { ...q, page: 1, namespace: 'team-a-one' });
      expect(none.totalCount).toBe(0);
      const byRgd = world.instances.list(actors.alice, { page: 1, pageSize: 500, sortBy: 'namespace', sortOrder: 'asc', rgdName: 'tenant' });
      expect(byRgd.items.map((i) => i.name)).toEqual(['acme']);
    });

    it('filters by a label selector, totalCount counting only the matches', async () => {
      const key = { namespace: 'dev', kind: 'WebApp', name: 'alpha-two' };
      const item = world.instances.index.get(key)!;
      await world.cluster.patch(item.ref, key.name, { metadata: { labels: { tier: 'gold' } } }, { namespace: 'dev' });
      await waitUntil(() => world.instances.index.get(key)?.instance.labels.tier === 'gold', 10_000, 'the label indexed');
      const names = (q: Record<string, unknown>) => world.instances.list(actors.alice, { ...allOnOnePage, ...q }).items.map((i) => i.name);
      expect(names({ labelSelector: 'tier=gold' })).toEqual(['alpha-two']);
      expect(names({ labelSelector: 'portico.dev/project=alpha,!tier', search: 'alpha-' })).toEqual(['alpha-one', 'alpha-three']);
      expect(names({ labelSelector: 'portico.dev/project in (beta)' })).toEqual([]);
      expect(names({ labelSelector: 'tier notin (gold)', search: 'alpha-' })).toEqual(['alpha-one', 'alpha-three']);
      const page = world.instances.list(actors.alice, { page: 2, pageSize: 1, sortBy: 'name', sortOrder: 'asc', search: 'alpha-', labelSelector: 'portico.dev/project=alpha,!tier' });
      expect(page.items.map((i) => i.name)).toEqual(['alpha-three']);
      expect(page.totalCount).toBe(2);
      // A Server Admin's list is read by position without a selector: the selector must still apply.
      expect(world.instances.list(actors.admin, { ...allOnOnePage, labelSelector: 'tier' }).totalCount).toBe(1);
      const err = await failure(() => world.instances.list(actors.alice, { ...allOnOnePage, labelSelector: 'tier=gold,' }));
      expect([err.status, err.code, err.details.fields]).toEqual([400, 'VALIDATION_FAILED', { labelSelector: '"tier=gold,": empty requirement (a comma at the start, at the end or after another comma)' }]);
    });

    it('filters by health', async () => {
      await healthy(world, { namespace: 'dev', kind: 'WebApp', name: 'alpha-one' });
      const list = world.instances.list(actors.alice, { ...allOnOnePage, health: 'Healthy' });
      expect(list.items.length).toBeGreaterThan(0);
      expect(list.items.every((i) => i.health === 'Healthy')).toBe(true);
    });

    it('instance counts per RGD follow visibility', () => {
      expect(world.instances.instanceCounts(actors.bob).get('webapp')).toBe(1);
      expect(world.instances.instanceCounts(actors.alice).get('tenant')).toBe(1);
      expect(world.instances.instanceCounts(actors.bob).get('tenant')).toBeUndefined();
    });

    it("a member's counts are kept between changes, and follow a new instance, a deletion and a role change each on its own", async () => {
      const counted = () => world.instances.instanceCounts(actors.vic, ['webapp']).get('webapp') ?? 0;
      const total = () => world.instances.count(actors.vic).count;
      const before = counted();
      const totalBefore = total();
      expect(before).toBeGreaterThan(0);
      expect(world.instances.instanceCounts(actors.vic, ['webapp'])).toBe(world.instances.instanceCounts(actors.vic, ['webapp']));
      expect(world.instances.count(actors.vic)).toBe(world.instances.count(actors.vic));
      const key = { namespace: 'dev', kind: 'WebApp', name: 'counted-one' };
      await world.instances.create(actors.alice, webapp('counted-one'));
      await waitUntil(() => world.instances.index.get(key) !== undefined, 10_000, 'the new instance indexed');
      expect([counted(), total()]).toEqual([before + 1, totalBefore + 1]);
      await world.instances.delete(actors.alice, key);
      await waitUntil(() => world.instances.index.get(key) === undefined, 10_000, 'the instance gone from the index');
      expect([counted(), total()]).toEqual([before, totalBefore]);
      // Only the policy changes: vic's viewer role in alpha goes, and with it every alpha instance from vic's counts.
      const alpha = { destinations: projects.alpha.destinations.map((namespace) => ({ namespace })), roles: projects.alpha.roles };
      try {
        await patchProject(world, 'alpha', { ...alpha, roles: alpha.roles.map((r) => (r.name === 'viewer' ? { ...r, users: [] } : r)) });
        expect([counted(), total()]).toEqual([0, 0]);
      } finally {
        await patchProject(world, 'alpha', alpha);
      }
      expect([counted(), total()]).toEqual([before, totalBefore]);
    });
    it('a page is one answer between changes; a patch, a new instance and a role change each give a new one', async () => {
      const q = { page: 1, pageSize: 50, sortBy: 'name' as const, sortOrder: 'asc' as const };
      const page = () => world.instances.list(actors.vic, q);
      const first = page();
      expect(page()).toBe(first);
      const key = { namespace: 'dev', kind: 'WebApp', name: 'alpha-one' };
      const patched = await world.instances.patch(actors.alice, key, { spec: { replicas: 7 } });
      await waitUntil(() => world.instances.index.get(key)?.instance.resourceVersion === patched.resourceVersion, 10_000, 'the patch indexed');
      const afterPatch = page();
      expect(afterPatch).not.toBe(first);
      expect(afterPatch.items.find((i) => i.name === 'alpha-one')?.spec.replicas).toBe(7);
      expect(JSON.parse(jsonText(afterPatch))).toEqual(JSON.parse(JSON.stringify(afterPatch)));
      const added = { namespace: 'dev', kind: 'WebApp', name: 'paged-one' };
      await world.instances.create(actors.alice, webapp('paged-one'));
      await waitUntil(() => world.instances.index.get(added) !== undefined, 10_000, 'the new instance indexed');
      expect(page().totalCount).toBe(afterPatch.totalCount + 1);
      expect(page().items.map((i) => i.name)).toContain('paged-one');
      await world.instances.delete(actors.alice, added);
      await waitUntil(() => world.instances.index.get(added) === undefined, 10_000, 'the instance gone from the index');
      expect(page().totalCount).toBe(afterPatch.totalCount);
      const alpha = { destinations: projects.alpha.destinations.map((namespace) => ({ namespace })), roles: projects.alpha.roles };
      try {
        await patchProject(world, 'alpha', { ...alpha, roles: alpha.roles.map((r) => (r.name === 'viewer' ? { ...r, users: [] } : r)) });
        expect(page().totalCount).toBe(0);
      } finally {
        await patchProject(world, 'alpha', alpha);
      }
      expect(page().totalCount).toBe(afterPatch.totalCount);
    });

    it("an RGD page is one answer between changes and follows the caller's instance counts", async () => {
      const rgds = () => world.catalog.list(actors.vic, { pageSize: 100 });
      const counted = () => rgds().items.find((r) => r.name === 'webapp')?.instances ?? 0;
      const first = rgds();
      expect(rgds()).toBe(first);
      const before = counted();
      expect(before).toBeGreaterThan(0);
      const key = { namespace: 'dev', kind: 'WebApp', name: 'rgd-paged' };
      await world.instances.create(actors.alice, webapp('rgd-paged'));
      await waitUntil(() => world.instances.index.get(key) !== undefined, 10_000, 'the new instance indexed');
      expect(counted()).toBe(before + 1);
      expect(JSON.parse(jsonText(rgds())).items.find((r: { name: string }) => r.name === 'webapp').instances).toBe(before + 1);
      // Another member's page of the same list carries its own counts, not vic's.
      expect(world.catalog.list(actors.bob, { pageSize: 100 }).items.find((r) => r.name === 'webapp')?.instances).toBe(1);
      await world.instances.delete(actors.alice, key);
      await waitUntil(() => world.instances.index.get(key) === undefined, 10_000, 'the instance gone from the index');
      expect(counted()).toBe(before);
    });
  });

  describe('patch', () => {
    const key = { namespace: 'dev', kind: 'WebApp', name: 'patchme' };
    beforeAll(async () => {
      await world.instances.create(actors.alice, webapp('patchme', { values: { image: 'nginx', port: 9090 } }));
      await healthy(world, key);
    });

    it('merge-patches the spec, re-validates and keeps the rest', async () => {
      const patched = await world.instances.patch(actors.alice, key, { spec: { replicas: 3, port: null } as never });
      expect(patched.spec).toEqual({ image: 'nginx', replicas: 3, port: 8080, tier: 'web' });
      expect(world.instances.get(actors.alice, key).spec.replicas).toBe(3);
    });

    it('rejects values the schema does not allow after the merge', async () => {
      const err = await failure(world.instances.patch(actors.alice, key, { spec: { replicas: 'many' } }));
      expect([err.status, err.code]).toEqual([400, 'VALIDATION_FAILED']);
      expect(Object.keys(err.details.fields as object)).toEqual(['spec.replicas']);
    });

    it('a stale resourceVersion: 409 CONFLICT', async () => {
      const before = world.instances.get(actors.alice, key).resourceVersion;
      await world.instances.patch(actors.alice, key, { spec: { replicas: 4 }, resourceVersion: before });
      const err = await failure(world.instances.patch(actors.alice, key, { spec: { replicas: 5 }, resourceVersion: before }));
      expect([err.status, err.code]).toEqual([409, 'CONFLICT']);
    });

    it('needs update permission (403), and is 404 for someone who cannot see it', async () => {
      expect((await failure(world.instances.patch(actors.vic, key, { spec: { replicas: 1 } }))).status).toBe(403);
      expect((await failure(world.instances.patch(actors.bob, key, { spec: { replicas: 1 } }))).status).toBe(404);
    });
  });

  describe('delete', () => {
    it('answers with the instance in DELETING, then it goes away', async () => {
      const key = { namespace: 'dev', kind: 'WebApp', name: 'doomed' };
      await world.instances.create(actors.alice, webapp('doomed'));
      await healthy(world, key);
      expect((await failure(world.instances.delete(actors.vic, key))).status).toBe(403);
      expect((await failure(world.instances.delete(actors.bob, key))).status).toBe(404);
      const deleted = await world.instances.delete(actors.alice, key);
      expect(deleted.status.state).toBe('DELETING');
      expect(deleted.health).toBe('Progressing');
      await waitUntil(() => world.instances.list(actors.alice, { ...allOnOnePage, search: 'doomed' }).totalCount === 0);
      expect((await failure(() => world.instances.get(actors.alice, key))).status).toBe(404);
      const gone = await world.nextEvent((e) => e.type === 'instance_update' && (e.data as { action: string; name: string }).action === 'delete' && e.name === 'doomed');
      expect(gone.object).toBe('instances/alpha/dev/WebApp/doomed');
    });
  });
});

describe('the instance index follows the catalog', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => {
    await world?.close();
  });

  it('starts watching a kind when its RGD enters the catalog and stops when it leaves', async () => {
    const object = rgd('late-app', { kind: 'LateApp', spec: { size: 'integer | default=1' } });
    object.metadata.annotations!['portico.dev/catalog'] = 'false';
    await world.cluster.create(resources.rgd, object);
    await world.cluster.controller.settle();
    expect((await failure(world.instances.create(actors.alice, { name: 'l1', namespace: 'dev', project: 'alpha', kind: 'LateApp', values: {} }))).status).toBe(404);

    await world.cluster.patch(resources.rgd, 'late-app', { metadata: { annotations: { 'portico.dev/catalog': 'true' } } });
    await waitUntil(() => world.catalog.entry('late-app')?.status === 'Active');
    await world.instances.index.settled();
    const created = await world.instances.create(actors.alice, { name: 'l1', namespace: 'dev', project: 'alpha', kind: 'LateApp', values: {} });
    expect(created.spec).toEqual({ size: 1 });
    expect(world.instances.get(actors.alice, { namespace: 'dev', kind: 'LateApp', name: 'l1' }).rgdName).toBe('late-app');

    await world.cluster.patch(resources.rgd, 'late-app', { metadata: { annotations: { 'portico.dev/catalog': 'false' } } });
    await waitUntil(() => world.catalog.entry('late-app') === undefined);
    await world.instances.index.settled();
    expect(world.instances.list(actors.alice, { ...allOnOnePage, kind: 'LateApp' }).totalCount).toBe(0);
    const gone = await world.nextEvent((e) => e.type === 'instance_update' && e.name === 'l1' && (e.data as { action: string }).action === 'delete');
    expect(gone.project).toBe('alpha');
  });
});

describe('GitOps deployment modes', () => {
  let world: World;
  let repo: string;
  beforeAll(async () => {
    repo = await mkdtemp(path.join(tmpdir(), 'portico-gitops-'));
    world = await startWorld({ gitopsRepo: repo });
  });
  afterAll(async () => {
    await world?.close();
    await rm(repo, { recursive: true, force: true });
  });

  const git = async (...args: string[]) => (await run('git', ['-C', repo, ...args])).stdout.trim();

  it('gitops commits the manifest to the repository and creates nothing in the cluster', async () => {
    const created = await world.instances.create(actors.alice, webapp('gitshop', { deploymentMode: 'gitops' }));
    expect(created.deploymentMode).toBe('gitops');
    expect(created.gitCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(await git('rev-parse', 'HEAD')).toBe(created.gitCommit);
    expect(await git('log', '-1', '--format=%an <%ae>|%s')).toBe('Portico <portico@localhost>|Create WebApp dev/gitshop in project alpha');
    const file = await readFile(path.join(repo, 'alpha/dev/WebApp/gitshop.yaml'), 'utf8');
    expect(file).toContain('kind: WebApp');
    expect(file).toContain('portico.dev/deployment-mode: gitops');
    expect(file).toContain('replicas: 2');
    expect(await world.cluster.list({ group: 'kro.run', version: 'v1alpha1', kind: 'WebApp', plural: 'webapps', namespaced: true })).toMatchObject({ items: [] });
    // the name is taken in Git now
    expect((await failure(world.instances.create(actors.alice, webapp('gitshop', { deploymentMode: 'gitops' })))).status).toBe(409);
  });

  it('hybrid commits, then creates the instance with the commit recorded', async () => {
    const created = await world.instances.create(actors.alice, {
      name: 'hyb',
      namespace: '',
      project: 'alpha',
      kind: 'Tenant',
      values: { owner: 'alice' },
      deploymentMode: 'hybrid',
    });
    expect(created.uid).not.toBe('');
    expect(created.gitCommit).toBe(await git('rev-parse', 'HEAD'));
    expect(await git('ls-files')).toContain('alpha/_cluster/Tenant/hyb.yaml');
    expect(Number(await git('rev-list', '--count', 'HEAD'))).toBe(2);
    await healthy(world, { namespace: '', kind: 'Tenant', name: 'hyb' });
  });

  it('hybrid changes and deletions are commits too', async () => {
    const key = { namespace: '', kind: 'Tenant', name: 'hyb' };
    const patched = await world.instances.patch(actors.alice, key, { spec: { quota: 20 } });
    expect(patched.spec.quota).toBe(20);
    expect(patched.gitCommit).toBe(await git('rev-parse', 'HEAD'));
    expect(await readFile(path.join(repo, 'alpha/_cluster/Tenant/hyb.yaml'), 'utf8')).toContain('quota: 20');
    await world.instances.delete(actors.alice, key);
    expect(await git('log', '-1', '--format=%s')).toBe('Delete Tenant hyb in project alpha');
    expect(await git('ls-files')).not.toContain('hyb.yaml');
  });
});
