import { randomUUID } from 'node:crypto';
import {
  createEmbeddedCluster,
  createKroController,
  createKubernetesCluster,
  createLogger,
  createMemoryKeyValue,
  createPortico,
  createRedisKeyValue,
  loadConfig,
  resources,
  type Cluster,
  type KeyValue,
  type KroController,
  type KubeObject,
  type Logger,
  type OperationHook,
  type Portico,
  type PorticoPlugin,
} from '@portico/core';
import { afterAll, beforeAll } from 'vitest';
import { startFakeKubeApi, type FakeKubeApi, type FakeKubeApiOptions } from '../../../core/test/support/fake-kube-api.js';
import { kubectlApply, kubectlDelete, readManifestFiles } from '../../../core/test/support/kubectl.js';
import { editionGrants, porticoRbac, sampleCatalogGrants, type Edition, type PorticoRbac } from '../../../core/test/support/rendered-rbac.js';
import { createServer, type PorticoServer as HttpServer } from '../../src/app.js';
import type { ServerPlugin } from '../../src/plugin.js';
import { attachWebSocket, type WebSocketHandle, type WebSocketOptions } from '../../src/ws/index.js';
import { deleteRedisKeys, login, redisAddress, sampleCatalog, uniqueRedisPrefix, type KeyValueKind, type TestPortico } from './portico.js';
import type { RunningServer } from './server.js';
import { apiAs, type ApiAs } from './api-as.js';

/**
 * The two cluster adapters a server-level test runs against:
 * - `embedded`: the in-process cluster with its simulated kro controller (development mode);
 * - `kubernetes`: the production adapter talking HTTP to the loopback fake kube-apiserver, with the simulated kro
 *   controller running beside Portico as its own API client, as kro runs in a real cluster.
 *
 *     describe.each(clusterModes)('instances (%s cluster)', (mode) => {
 *       const { tp, admin } = useServer(mode);
 *       ...
 *     });
 */
export const clusterModes = ['embedded', 'kubernetes'] as const;
export type ClusterMode = (typeof clusterModes)[number];

export interface PorticoServerOptions {
  mode: ClusterMode;
  /** YAML files or folders applied to the cluster before Portico starts (default: examples/catalog). */
  manifests?: string[];
  /** `memory` (default) or `redis` (a real Redis under a fresh prefix); or a ready KeyValue the caller closes. */
  kv?: KeyValueKind | KeyValue;
  /** Only with `kv: 'redis'`; defaults to a fresh unique prefix. */
  redisPrefix?: string;
  /** Pace of the simulated kro controller (default 10 ms). */
  kroStepMs?: number;
  /** Options of the /ws endpoint, which is always attached. */
  ws?: WebSocketOptions;
  /** The initial admin password (default: a fresh random one). */
  adminPassword?: string;
  /** More configuration variables, applied last. */
  env?: Record<string, string>;
  /** Kubernetes mode: options of the fake API server (the kro status fix is always applied). */
  fakeApi?: FakeKubeApiOptions;
  /**
   * Kubernetes mode: the RBAC Portico's replicas get from the fake API server, as the shipped manifests grant it
   * (rendered-rbac.ts): the Enterprise edition's with `corePlugins`, else the OSS one's, plus what an operator adds
   * for the example catalog (its RGDs' extra group, reading their children's kinds). A call they do not grant
   * is 403, as on a real cluster. `false` turns RBAC mode off (a test of something else that needs more); a
   * PorticoRbac of its own sets the rules (deploy/rbac-rules.test.ts removes one at a time).
   */
  rbac?: Edition | false | PorticoRbac;
  /** Another replica on the same cluster: reuses its cluster, kro and (in Kubernetes mode) API server. */
  join?: PorticoServer;
  logger?: Logger;
  /** What an edition gives `createPortico` (RBAC rows, operations, hooks), as its binary does. */
  corePlugins?: readonly PorticoPlugin[];
  /** Hooks of an embedding program around every operation. */
  hooks?: readonly OperationHook[];
  /** An edition plugin built on the started Portico (the Enterprise tests); stopped after the HTTP server. */
  plugin?: (portico: Portico) => Promise<ServerPlugin>;
}

/**
 * A real Portico behind the real HTTP server (with /ws), on either cluster adapter. It has the shape of
 * `TestPortico` (support/portico.ts), so `apiAs`, `createUser` and `createProject` work with it unchanged.
 */
export interface PorticoServer extends TestPortico {
  mode: ClusterMode;
  /** `ws://127.0.0.1:<port>` */
  wsBase: string;
  ws: WebSocketHandle;
  /**
   * A client of the same cluster that is not Portico, like kubectl: the embedded cluster itself, or a second
   * Kubernetes adapter on the fake API server (so its writes are plain POST/PATCH/DELETE requests).
   */
  kubectl: Cluster;
  /** The simulated kro controller working on this cluster. */
  kro: KroController;
  /** Kubernetes mode: the fake API server (to break it), and Portico's own client name on it (`partition`). */
  api?: FakeKubeApi;
  /** Kubernetes mode: the RBAC in force for Portico's replicas (its grants, and what it refused). */
  rbac?: PorticoRbac;
  apiClientName?: string;
  /** `kubectl apply` of YAML text or objects (creates, or merge-patches what exists). */
  apply(input: string | KubeObject | KubeObject[]): Promise<KubeObject[]>;
  /** `kubectl delete`. */
  remove(object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>): Promise<void>;
  /** Resolves once kro has given every RGD a state (Active or Inactive). */
  rgdsSettled(): Promise<void>;
}

/** The cluster side shared by replicas: the cluster, kro, kubectl and their closing. */
interface ClusterSide {
  kubectl: Cluster;
  kro: KroController;
  api?: FakeKubeApi;
  rbac?: PorticoRbac;
  /** A Cluster for one more Portico replica, with the name it has on the fake API server. */
  porticoCluster(logger: Logger): { cluster: Cluster; clientName?: string };
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (through API outages too) until kro has given every RGD a state. */
async function everyRgdHasState(kubectl: Cluster, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = await kubectl.list(resources.rgd).then(
      ({ items }) => items.filter((rgd) => typeof rgd.status?.state !== 'string').map((rgd) => rgd.metadata.name),
      (err: Error) => [`(the API answered: ${err.message})`],
    );
    if (pending.length === 0) return;
    if (Date.now() > deadline) throw new Error(`kro did not activate the RGDs: ${pending.join(', ')}`);
    await sleep(10);
  }
}

async function embeddedSide(manifests: string[], kroStepMs: number, logger: Logger): Promise<ClusterSide> {
  const cluster = await createEmbeddedCluster({ manifests, kroStepMs, logger });
  return {
    kubectl: cluster,
    kro: cluster.controller,
    porticoCluster: () => ({ cluster }),
    close: () => cluster.close(),
  };
}

async function kubernetesSide(manifests: string[], kroStepMs: number, logger: Logger, fakeApi: FakeKubeApiOptions = {}, rbac?: PorticoRbac): Promise<ClusterSide> {
  // kro writes status with ordinary merge patches (the Cluster port has no status endpoint): no status subresource.
  const api = await startFakeKubeApi({ ...fakeApi, statusSubresource: false, rbac });
  const opened: Cluster[] = [];
  const client = (name: string | undefined, clientLogger: Logger) => {
    const cluster = createKubernetesCluster({
      inCluster: false,
      kubeConfig: name ? api.clientConfig(name) : api.kubeConfig,
      logger: clientLogger,
      requestTimeoutMs: 5_000,
      // kubectl applies an RGD and then its instances at once: look a missing kind up again right away.
      discovery: { missRefreshMs: 0 },
    });
    opened.push(cluster);
    return cluster;
  };
  const kubectl = client(undefined, logger);
  const kro = createKroController(client('kro', logger), { stepMs: kroStepMs, logger });
  let replicas = 0;
  try {
    await kubectlApply(kubectl, await readManifestFiles(manifests));
  } catch (err) {
    await kro.close();
    await Promise.all(opened.map((c) => c.close()));
    await api.stop();
    throw err;
  }
  return {
    kubectl,
    kro,
    api,
    rbac,
    porticoCluster(porticoLogger) {
      const clientName = `portico-${++replicas}`;
      return { cluster: client(clientName, porticoLogger), clientName };
    },
    async close() {
      await kro.close();
      await Promise.all(opened.map((c) => c.close()));
      await api.stop();
    },
  };
}

/**
 * Starts Portico in the development profile (rate limits off, as in startTestPortico) on the chosen cluster,
 * seeded with `manifests`, after kro has activated the RGDs, and signs the admin in.
 */
export async function startPorticoServer(opts: PorticoServerOptions): Promise<PorticoServer> {
  const logger = opts.logger ?? createLogger('silent');
  const kroStepMs = opts.kroStepMs ?? 10;
  const adminPassword = opts.adminPassword ?? `admin-${randomUUID()}`;
  const manifests = opts.manifests ?? [sampleCatalog];
  const kvKind = typeof opts.kv === 'string' ? opts.kv : opts.kv ? undefined : 'memory';
  const redisPrefix = kvKind === 'redis' ? (opts.redisPrefix ?? uniqueRedisPrefix()) : undefined;

  let side: ClusterSide | undefined;
  let ownsSide = false;
  let kv: KeyValue | undefined;
  let portico: Portico | undefined;
  let porticoCluster: Cluster | undefined;
  let app: HttpServer | undefined;
  let plugin: ServerPlugin | undefined;
  const close = async () => {
    await app?.close();
    await plugin?.stop?.();
    await portico?.stop();
    if (typeof opts.kv !== 'object') await kv?.close();
    if (opts.mode === 'kubernetes') await porticoCluster?.close();
    if (ownsSide) await side?.close();
    if (redisPrefix) await deleteRedisKeys(redisPrefix);
  };

  try {
    if (opts.join) {
      if (opts.join.mode !== opts.mode) throw new Error(`cannot join a ${opts.join.mode} cluster in ${opts.mode} mode`);
      side = sideOf.get(opts.join);
      if (!side) throw new Error('join: not a server started with startPorticoServer');
    } else {
      ownsSide = true;
      side =
        opts.mode === 'embedded'
          ? await embeddedSide(manifests, kroStepMs, logger)
          : await kubernetesSide(manifests, kroStepMs, logger, opts.fakeApi, rbacOf(opts));
    }
    await everyRgdHasState(side.kubectl);

    const config = loadConfig({
      PORTICO_PROFILE: 'development',
      PORTICO_CLUSTER: opts.mode,
      ADMIN_PASSWORD: adminPassword,
      PORTICO_KRO_STEP_MS: String(kroStepMs),
      PORTICO_RATE_LIMITS: '0',
      ...(redisPrefix ? { PORTICO_KV: 'redis', REDIS_ADDRESS: redisAddress, PORTICO_REDIS_PREFIX: redisPrefix } : { PORTICO_KV: 'memory' }),
      ...opts.env,
    });
    kv =
      typeof opts.kv === 'object'
        ? opts.kv
        : redisPrefix
          ? createRedisKeyValue({ address: redisAddress, prefix: redisPrefix, logger })
          : createMemoryKeyValue();
    const { cluster, clientName } = side.porticoCluster(logger);
    porticoCluster = cluster;
    portico = await createPortico({ config, cluster, kv, logger, plugins: opts.corePlugins, hooks: opts.hooks });

    let ws: WebSocketHandle | undefined;
    plugin = await opts.plugin?.(portico);
    app = createServer(portico, { upgrade: (s) => (ws = attachWebSocket(s, portico!, { ...opts.ws })), plugins: plugin ? [plugin] : [] });
    const address = await app.listen('127.0.0.1', 0);
    const url = `http://127.0.0.1:${address.port}`;
    const httpServer: RunningServer = { url, port: address.port, close: () => app!.close() };
    const adminToken = await login(url, 'admin', adminPassword);
    const kubectl = side.kubectl;

    const server: PorticoServer = {
      mode: opts.mode,
      portico,
      server: httpServer,
      url,
      wsBase: `ws://127.0.0.1:${address.port}`,
      ws: ws!,
      adminPassword,
      adminToken,
      redisPrefix,
      kubectl,
      kro: side.kro,
      api: side.api,
      rbac: side.rbac,
      apiClientName: clientName,
      apply: (input) => kubectlApply(kubectl, input),
      remove: (object) => kubectlDelete(kubectl, object),
      rgdsSettled: () => everyRgdHasState(kubectl),
      close,
    };
    sideOf.set(server, side);
    return server;
  } catch (error) {
    await close();
    throw error;
  }
}

const sideOf = new WeakMap<PorticoServer, ClusterSide>();

/** The RBAC mode a new Kubernetes side starts with: the edition's shipped rules, unless turned off. */
function rbacOf(opts: PorticoServerOptions): PorticoRbac | undefined {
  if (opts.rbac === false) return undefined;
  if (typeof opts.rbac === 'object') return opts.rbac;
  const edition: Edition = opts.rbac ?? (opts.corePlugins?.length ? 'enterprise' : 'oss');
  return porticoRbac([...editionGrants(edition), ...sampleCatalogGrants]);
}

/**
 * Starts a server in `mode` before the tests of the enclosing `describe` and closes it after them. `tp` and
 * `admin` (the admin's API) stand for that server: they are bound when the tests run, so they can be
 * destructured at the top of the describe; touching them before `beforeAll` has run throws.
 */
export function useServer(mode: ClusterMode, options: Omit<PorticoServerOptions, 'mode'> = {}): { tp: PorticoServer; admin: ApiAs } {
  let server: PorticoServer | undefined;
  let admin: ApiAs | undefined;
  beforeAll(async () => {
    server = await startPorticoServer({ ...options, mode });
    admin = apiAs(server.url, server.adminToken);
  });
  afterAll(async () => {
    await server?.close();
  });
  return { tp: boundLater('the server', () => server), admin: boundLater('the admin API', () => admin) };
}

/** An object that forwards every property to the value `current` answers once it has one. */
function boundLater<T extends object>(what: string, current: () => T | undefined): T {
  const target = () => {
    const value = current();
    if (!value) throw new Error(`${what} is not started yet: use it inside a test or a later beforeAll`);
    return value;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(target(), key),
    has: (_, key) => Reflect.has(target(), key),
  });
}
