import type * as api from '@portico/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmbeddedCluster } from '../../src/adapters/embedded-cluster/index.js';
import { createKubernetesCluster } from '../../src/adapters/kubernetes/index.js';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { systemActor, type Actor } from '../../src/actor.js';
import { createCatalog } from '../../src/catalog/index.js';
import { createInformer } from '../../src/cluster/informer.js';
import { loadConfig } from '../../src/config.js';
import { createEvents } from '../../src/events/index.js';
import { createInstances, type Instances } from '../../src/instances/index.js';
import type { IndexedInstance } from '../../src/instances/instance-index.js';
import { createLogger } from '../../src/logger.js';
import { resources, type Cluster, type KubeObject, type ResourceRef } from '../../src/ports/cluster.js';
import { projectPolicySource, projectResource, waitForInformer } from '../../src/projects/index.js';
import { createAuthorizer } from '../../src/rbac/index.js';
import type { Authorizer } from '../../src/types.js';
import { startFakeKubeApi } from '../support/fake-kube-api.js';
import { rgd, waitUntil } from './world.js';

/**
 * The list indexes (sorted views, maintained counts, per-role reach) stay exact under churn: random creates,
 * patches (spec, status, labels moving an instance to another project), deletes, binds and unbinds on both cluster
 * adapters; after every few steps each list page, totalCount, filter, count and per-RGD count equals a brute-force
 * recomputation over the index's plain map, and at the end that map equals what the cluster holds.
 */

const NS = 'portico';
const kinds = [
  { rgd: 'webapp', kind: 'WebApp' },
  { rgd: 'worker', kind: 'Worker' },
];
const projectNames = ['alpha', 'beta', 'gamma'];
const namespaces = ['dev', 'ops', 'prod'];
const states = [
  undefined,
  { state: 'IN_PROGRESS' },
  { state: 'ACTIVE', conditions: [{ type: 'Ready', status: 'True', reason: 'AllResourcesReady', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
  { state: 'ERROR' },
];
const users = ['ann', 'ben', 'cid', 'dee'];
const roles = [
  { name: 'developer', policies: ['instances/*, *, allow', 'rgds/*, get, allow'] },
  // Item-level rules: only the dev namespace; and everything but ops.
  { name: 'auditor', policies: ['instances/dev/*, get, allow'] },
  { name: 'reader', policies: ['instances/*, get, allow', 'instances/ops/*, get, deny'] },
];

/** A small deterministic PRNG, so a failure replays. */
function random(seed: number) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] };
}

const sortValue = (i: api.Instance, sortBy: api.InstanceListQuery['sortBy']) =>
  sortBy === 'createdAt' || sortBy === 'updatedAt' ? Date.parse(i[sortBy]) || 0 : i[sortBy];
const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** The list, recomputed the obvious way from every indexed instance. */
function bruteForce(all: IndexedInstance[], authz: Authorizer, actor: Actor, q: api.InstanceListQuery): api.InstanceList {
  const search = q.search?.toLowerCase();
  const rows = all
    .filter((x) => authz.can(actor, 'get', x.rbacObject))
    .map((x) => ({ id: x.id, i: x.instance }))
    .filter(
      ({ i }) =>
        (q.project === undefined || i.project === q.project) &&
        (q.namespace === undefined || i.namespace === q.namespace) &&
        (q.kind === undefined || i.kind === q.kind) &&
        (q.rgdName === undefined || i.rgdName === q.rgdName) &&
        (q.health === undefined || i.health === q.health) &&
        (!search || i.name.toLowerCase().includes(search)),
    )
    .sort((a, b) => (q.sortOrder === 'desc' ? -1 : 1) * (cmp(sortValue(a.i, q.sortBy), sortValue(b.i, q.sortBy)) || cmp(a.id, b.id)));
  const first = (q.page - 1) * q.pageSize;
  return { items: rows.slice(first, first + q.pageSize).map((r) => r.i), totalCount: rows.length, page: q.page, pageSize: q.pageSize };
}

function queries(rand: ReturnType<typeof random>): api.InstanceListQuery[] {
  const sorts: api.InstanceListQuery['sortBy'][] = ['name', 'namespace', 'kind', 'project', 'health', 'createdAt', 'updatedAt'];
  const out: api.InstanceListQuery[] = [];
  for (const sortBy of sorts) {
    for (const sortOrder of ['asc', 'desc'] as const) {
      for (let page = 1; page <= 3; page++) out.push({ sortBy, sortOrder, page, pageSize: 4 });
    }
  }
  for (let k = 0; k < 12; k++) {
    out.push({
      sortBy: rand.pick(sorts),
      sortOrder: rand.pick(['asc', 'desc'] as const),
      page: 1 + Math.floor(rand.next() * 2),
      pageSize: 3,
      ...(rand.next() < 0.5 ? { project: rand.pick(projectNames) } : {}),
      ...(rand.next() < 0.4 ? { namespace: rand.pick(namespaces) } : {}),
      ...(rand.next() < 0.3 ? { kind: rand.pick(kinds).kind } : {}),
      ...(rand.next() < 0.3 ? { rgdName: rand.pick(kinds).rgd } : {}),
      ...(rand.next() < 0.3 ? { health: rand.pick(['Healthy', 'Progressing', 'Unhealthy', 'Unknown'] as const) } : {}),
      ...(rand.next() < 0.2 ? { search: String(Math.floor(rand.next() * 10)) } : {}),
    });
  }
  return out;
}

interface Adapter {
  cluster: Cluster;
  close(): Promise<void>;
}

const adapters: Record<string, () => Promise<Adapter>> = {
  embedded: async () => {
    // A slow kro: its status writes are churn too, but the test's own writes dominate.
    const cluster = await createEmbeddedCluster({ kroStepMs: 50 });
    return { cluster, close: () => cluster.close() };
  },
  kubernetes: async () => {
    const fake = await startFakeKubeApi({ statusSubresource: false, bookmarkIntervalMs: 200 });
    const cluster = createKubernetesCluster({ inCluster: false, kubeConfig: fake.kubeConfig, requestTimeoutMs: 5_000 });
    return {
      cluster,
      close: async () => {
        await cluster.close();
        await fake.stop();
      },
    };
  },
};

const open: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close();
});

describe.each(Object.keys(adapters))('instance list indexes under churn (%s cluster)', (adapterName) => {
  it('every page, totalCount, filter and count equals a brute-force recomputation after random changes', async () => {
    const { cluster, close } = await adapters[adapterName]();
    open.push(close);
    const logger = createLogger('silent');
    for (const k of kinds) await cluster.create(resources.rgd, rgd(k.rgd, { kind: k.kind }));
    const projectSpec = (bound: Record<string, string[]>) => roles.map((r) => ({ ...r, users: bound[r.name] ?? [], groups: [] }));
    const bindings = new Map<string, Record<string, string[]>>();
    for (const name of projectNames) {
      bindings.set(name, { developer: ['ann'], auditor: ['ben'], reader: ['cid'] });
      await cluster.create(
        resources.project,
        projectResource({ name, description: '', destinations: namespaces.map((namespace) => ({ namespace })), roles: projectSpec(bindings.get(name)!) }, { namespace: NS, createdBy: 'test' }),
      );
    }

    const projectInformer = createInformer(cluster, resources.project, { namespace: NS, logger });
    const rgdInformer = createInformer(cluster, resources.rgd, { logger });
    const authz = createAuthorizer({ projects: projectInformer, policyOf: projectPolicySource, serverAdmins: ['user:root'], logger });
    let instances: Instances | undefined;
    const catalog = createCatalog({ rgds: rgdInformer, authz, logger, instanceCounts: (a, names) => instances!.instanceCounts(a, names) });
    await Promise.all([projectInformer.start(), rgdInformer.start()]);
    await authz.ready();
    const kv = createMemoryKeyValue();
    const events = createEvents({ kv, logger });
    instances = createInstances({ cluster, catalog, authz, projects: projectInformer, events, config: loadConfig({}), logger, createInformer });
    await instances.start();
    open.push(async () => {
      await instances!.stop();
      await events.close();
      catalog.close();
      projectInformer.stop();
      rgdInformer.stop();
      await kv.close();
    });
    const refs = new Map<string, ResourceRef>();
    for (const k of kinds) {
      await waitUntil(async () => (await cluster.discover('kro.run', 'v1alpha1', k.kind)) !== undefined, 10_000, `${k.kind} served`);
      refs.set(k.kind, (await cluster.discover('kro.run', 'v1alpha1', k.kind))!);
    }
    await waitUntil(() => kinds.every((k) => catalog.entry(k.rgd) && instances!.index.refOf(catalog.entry(k.rgd)!)), 10_000, 'kinds watched');

    const actors = [systemActor('root'), ...users.map((u) => systemActor(u))];
    const rand = random(adapterName === 'embedded' ? 13 : 29);
    const live = new Map<string, { kind: string; namespace: string; name: string }>();
    let serial = 0;

    const compare = () => {
      const index = instances!.index;
      const all = [...index.all()];
      for (const actor of actors) {
        for (const q of queries(rand)) {
          const got = instances!.list(actor, q);
          const want = bruteForce(all, authz, actor, q);
          expect({ actor: actor.id, q, items: got.items.map((i) => i.name), total: got.totalCount }).toEqual({
            actor: actor.id,
            q,
            items: want.items.map((i) => i.name),
            total: want.totalCount,
          });
          // The JSON sent is the JSON of the very items.
          expect(JSON.parse(JSON.stringify(got))).toEqual(JSON.parse(JSON.stringify(want)));
        }
        const visible = all.filter((x) => authz.can(actor, 'get', x.rbacObject));
        expect(instances!.count(actor).count).toBe(visible.length);
        const perRgd = new Map<string, number>();
        for (const x of visible) perRgd.set(x.instance.rgdName, (perRgd.get(x.instance.rgdName) ?? 0) + 1);
        expect(new Map(instances!.instanceCounts(actor))).toEqual(perRgd);
        // A catalog page asks for its own RGDs only (one listed, one never used, one maybe unused).
        const names = [kinds[0]!.rgd, 'no-such-rgd', rand.pick(kinds).rgd];
        const paged = instances!.instanceCounts(actor, names);
        for (const name of names) expect(paged.get(name) ?? 0, `${actor.id} ${name}`).toBe(perRgd.get(name) ?? 0);
        const rgdPage = catalog.list(actor, { pageSize: 50 });
        for (const rgd of rgdPage.items) expect(rgd.instances, `${actor.id} ${rgd.name}`).toBe(perRgd.get(rgd.name) ?? 0);
      }
    };

    const step = async () => {
      const roll = rand.next();
      const existing = [...live.entries()];
      if (roll < 0.35 || existing.length < 3) {
        const k = rand.pick(kinds);
        const project = rand.pick(projectNames);
        const name = `i${serial++}-${Math.floor(rand.next() * 10)}`;
        const namespace = rand.pick(namespaces);
        await cluster.create(refs.get(k.kind)!, {
          apiVersion: 'kro.run/v1alpha1',
          kind: k.kind,
          metadata: {
            name,
            namespace,
            labels: { 'portico.dev/project': project, 'portico.dev/rgd': k.rgd, 'portico.dev/deployment-mode': 'direct' },
            annotations: { 'portico.dev/created-at': new Date(Date.UTC(2026, 0, 1 + Math.floor(rand.next() * 20))).toISOString() },
          },
          spec: { n: serial },
        });
        live.set(`${namespace}/${k.kind}/${name}`, { kind: k.kind, namespace, name });
      } else if (roll < 0.7) {
        const [, x] = rand.pick(existing);
        const patch: Record<string, unknown> =
          rand.next() < 0.5
            ? { status: rand.pick(states) ?? null }
            : rand.next() < 0.5
              ? { metadata: { labels: { 'portico.dev/project': rand.pick(projectNames) } } }
              : { spec: { n: rand.next() }, metadata: { annotations: { 'portico.dev/updated-at': new Date(Date.UTC(2026, 1, 1 + Math.floor(rand.next() * 20))).toISOString() } } };
        await cluster.patch(refs.get(x.kind)!, x.name, patch, { namespace: x.namespace }).catch(() => undefined);
      } else if (roll < 0.85) {
        const [id, x] = rand.pick(existing);
        await cluster.delete(refs.get(x.kind)!, x.name, x.namespace).catch(() => undefined);
        live.delete(id);
      } else {
        const project = rand.pick(projectNames);
        const bound = bindings.get(project)!;
        const role = rand.pick(roles).name;
        const user = rand.pick(users);
        bound[role] = bound[role]?.includes(user) ? bound[role].filter((u) => u !== user) : [...(bound[role] ?? []), user];
        const written = await cluster.patch(resources.project, project, { spec: { roles: projectSpec(bound) } }, { namespace: NS });
        await waitForInformer(projectInformer, project, NS, { resourceVersion: written.metadata.resourceVersion! });
      }
    };

    for (let i = 1; i <= 120; i++) {
      await step();
      if (i % 20 === 0) {
        // Let the watch events of these writes reach the index, then compare at one instant.
        await new Promise((r) => setTimeout(r, 100));
        compare();
      }
    }

    // At rest the index holds exactly what the cluster holds.
    const inCluster = async () => {
      const ids = new Map<string, string>();
      for (const k of kinds) for (const o of (await cluster.list(refs.get(k.kind)!)).items) ids.set(`${o.metadata.namespace}/${k.kind}/${o.metadata.name}`, o.metadata.resourceVersion!);
      return ids;
    };
    const indexed = () => new Map([...instances!.index.all()].map((x): [string, string] => [x.id, (x.object as KubeObject).metadata.resourceVersion!]));
    await waitUntil(async () => JSON.stringify([...(await inCluster())].sort()) === JSON.stringify([...indexed()].sort()), 10_000, 'the index to match the cluster');
    compare();
  }, 60_000);
});
