import { createEmbeddedCluster, type EmbeddedCluster } from '../../src/adapters/embedded-cluster/index.js';
import { createMemoryKeyValue } from '../../src/adapters/memory-kv.js';
import { systemActor, type Actor } from '../../src/actor.js';
import { createCatalog, type Catalog } from '../../src/catalog/index.js';
import { createInformer } from '../../src/cluster/informer.js';
import type { Informer } from '../../src/cluster/informer-types.js';
import { loadConfig, type PorticoConfig } from '../../src/config.js';
import { createEvents, type Events, type PublishedEvent } from '../../src/events/index.js';
import { createInstances, type Instances } from '../../src/instances/index.js';
import { createLogger } from '../../src/logger.js';
import { resources, type KubeObject } from '../../src/ports/cluster.js';
import type { KeyValue } from '../../src/ports/keyvalue.js';
import { projectPolicySource, projectResource, waitForInformer } from '../../src/projects/index.js';
import { createAuthorizer } from '../../src/rbac/index.js';
import type { Authorizer } from '../../src/types.js';

export const projectNamespace = 'portico';

const template = (id: string, kind: string, after?: string) => ({
  id,
  template: {
    apiVersion: 'v1',
    kind,
    metadata: { name: after ? `\${${after}.metadata.name}-${id}` : '${schema.metadata.name}' },
  },
});

/** A catalog RGD as kro and Portico read it. */
export function rgd(
  name: string,
  opts: {
    kind: string;
    scope?: 'Cluster';
    spec?: Record<string, unknown>;
    resources?: unknown[];
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  },
): KubeObject {
  return {
    apiVersion: 'kro.run/v1alpha1',
    kind: 'ResourceGraphDefinition',
    metadata: {
      name,
      annotations: { 'portico.dev/catalog': 'true', 'portico.dev/category': 'apps', ...opts.annotations },
      ...(opts.labels ? { labels: opts.labels } : {}),
    },
    spec: {
      schema: {
        apiVersion: 'v1alpha1',
        kind: opts.kind,
        ...(opts.scope ? { scope: opts.scope } : {}),
        spec: opts.spec ?? {},
      },
      resources: opts.resources ?? [template('config', 'ConfigMap')],
    },
  };
}

/** The catalog of these tests: namespaced, cluster-scoped, direct-only, inactive and project-only RGDs. */
export const catalogRgds: KubeObject[] = [
  rgd('webapp', {
    kind: 'WebApp',
    spec: {
      image: 'string | required=true',
      replicas: 'integer | default=2 minimum=1 maximum=10',
      port: 'integer | default=8080',
      tier: 'string | default=web enum=web,worker',
    },
    resources: [template('deployment', 'ConfigMap'), template('service', 'ConfigMap', 'deployment'), template('ingress', 'ConfigMap', 'service')],
  }),
  rgd('tenant', {
    kind: 'Tenant',
    scope: 'Cluster',
    spec: { owner: 'string | required=true', quota: 'integer | default=10' },
    resources: [template('namespace', 'ConfigMap'), template('quota', 'ConfigMap', 'namespace')],
  }),
  rgd('direct-app', { kind: 'DirectApp', annotations: { 'portico.dev/deployment-modes': 'direct' } }),
  rgd('broken', {
    kind: 'BrokenApp',
    resources: [template('a', 'ConfigMap', 'b'), template('b', 'ConfigMap', 'a')],
  }),
  rgd('beta-app', { kind: 'BetaApp', labels: { 'portico.dev/project': 'beta' } }),
];

const developer = ['instances/*, *, allow', 'rgds/*, get, allow'];
const viewer = ['instances/*, get, allow', 'rgds/*, get, allow'];

export const projects = {
  alpha: {
    destinations: ['dev', 'team-a-*'],
    roles: [
      { name: 'developer', policies: developer, users: ['alice'], groups: [] },
      { name: 'viewer', policies: viewer, users: ['vic'], groups: [] },
    ],
  },
  beta: {
    destinations: ['beta'],
    roles: [{ name: 'developer', policies: developer, users: ['bob'], groups: [] }],
  },
};

export const actors = {
  admin: systemActor('admin'),
  alice: systemActor('alice'),
  vic: systemActor('vic'),
  bob: systemActor('bob'),
  nobody: systemActor('nobody'),
};

export interface World {
  cluster: EmbeddedCluster;
  kv: KeyValue;
  config: PorticoConfig;
  projectInformer: Informer;
  rgdInformer: Informer;
  authz: Authorizer;
  catalog: Catalog;
  events: Events;
  instances: Instances;
  /** Every event this process delivered, in order. */
  received: PublishedEvent[];
  /** Resolves with the first delivered event (from now on or already received) that satisfies `match`. */
  nextEvent(match: (e: PublishedEvent) => boolean, timeoutMs?: number): Promise<PublishedEvent>;
  close(): Promise<void>;
}

export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An embedded cluster with the test catalog and projects applied. */
export async function seededCluster(logger = createLogger('silent'), kroStepMs = 5): Promise<EmbeddedCluster> {
  const cluster = await createEmbeddedCluster({ kroStepMs, logger });
  for (const object of catalogRgds) await cluster.create(resources.rgd, object);
  for (const [name, p] of Object.entries(projects)) {
    await cluster.create(
      resources.project,
      projectResource(
        { name, description: '', destinations: p.destinations.map((namespace) => ({ namespace })), roles: p.roles },
        { namespace: projectNamespace, createdBy: 'test' },
      ),
    );
  }
  return cluster;
}

/** Real parts end to end: embedded cluster with simulated kro, informers, policy engine, catalog, events. */
export async function startWorld(
  opts: {
    gitopsRepo?: string;
    kv?: KeyValue;
    kroStepMs?: number;
    /** Share another world's cluster (a second replica). */
    cluster?: EmbeddedCluster;
    /** How the instance index makes its informers (to hold one back, say). */
    createInformer?: typeof createInformer;
  } = {},
): Promise<World> {
  const logger = createLogger('silent');
  const config = { ...loadConfig({}), gitopsRepo: opts.gitopsRepo };
  const cluster = opts.cluster ?? (await seededCluster(logger, opts.kroStepMs));
  await cluster.controller.settle();

  const projectInformer = createInformer(cluster, resources.project, { namespace: projectNamespace, logger });
  const rgdInformer = createInformer(cluster, resources.rgd, { logger });
  const authz = createAuthorizer({ projects: projectInformer, policyOf: projectPolicySource, serverAdmins: [], logger });
  const catalog = createCatalog({
    rgds: rgdInformer,
    authz,
    logger,
    instanceCounts: (actor, names) => instances.instanceCounts(actor, names),
    instanceCountsRevision: () => instances.index.countsRevision(),
  });
  await Promise.all([projectInformer.start(), rgdInformer.start()]);
  await authz.ready();

  const kv = opts.kv ?? createMemoryKeyValue();
  const events = createEvents({ kv, logger });
  await events.ready();
  const received: PublishedEvent[] = [];
  const waiters = new Set<() => void>();
  events.onEvent((e) => {
    received.push(e);
    for (const w of [...waiters]) w();
  });
  const instances = createInstances({ cluster, catalog, authz, projects: projectInformer, events, config, logger, createInformer: opts.createInformer ?? createInformer });
  await instances.start();

  return {
    cluster,
    kv,
    config,
    projectInformer,
    rgdInformer,
    authz,
    catalog,
    events,
    instances,
    received,
    nextEvent(match, timeoutMs = 10_000) {
      const found = received.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = received.find(match);
          if (!hit) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error('timed out waiting for an event'));
        }, timeoutMs);
        waiters.add(check);
      });
    },
    async close() {
      await instances.stop();
      await events.close();
      catalog.close();
      projectInformer.stop();
      rgdInformer.stop();
      if (!opts.kv) await kv.close();
      if (!opts.cluster) await cluster.close();
    },
  };
}

/** Updates a project's spec the way kubectl would, and waits until the policy engine has it. */
export async function patchProject(world: World, name: string, spec: Record<string, unknown>): Promise<void> {
  const written = await world.cluster.patch(resources.project, name, { spec }, { namespace: projectNamespace });
  await waitForInformer(world.projectInformer, name, projectNamespace, { resourceVersion: written.metadata.resourceVersion! });
}

export type { Actor };
