import * as api from '@portico/api';
import { createEmbeddedCluster, createMemoryKeyValue, createRedisKeyValue } from './adapters/index.js';
import { createKubernetesCluster } from './adapters/kubernetes/index.js';
import { createAuth } from './auth/index.js';
import { createOidc, loadOidcSettings, oidcServerAdmins } from './auth/oidc/index.js';
import { createSsoProviderRegistry, createSsoProviders } from './auth/sso/index.js';
import { createLimits } from './limits/index.js';
import { createCatalog, createRevisionStore } from './catalog/index.js';
import { createInformer } from './cluster/informer.js';
import { loadConfig, type PorticoConfig } from './config.js';
import { createEvents } from './events/index.js';
import { createInstances, type Instances } from './instances/index.js';
import { createLogger, type Logger } from './logger.js';
import { resources, type Cluster } from './ports/cluster.js';
import type { KeyValue } from './ports/keyvalue.js';
import { createProjects, projectPolicySource } from './projects/index.js';
import { createSecrets } from './secrets/index.js';
import { createAccess, createAuthorizer, validateRoles } from './rbac/index.js';
import type { EventStream, Portico } from './types.js';
import type { PorticoPlugin } from './editions/plugin.js';
import { createOperationRunner, type OperationHook } from './operations/index.js';
import { accountOperations, authOperations, instanceOperations, projectOperations, secretOperations } from './operations/oss-operations.js';
import { ssoProviderOperations } from './operations/sso-operations.js';
import { preferenceOperations } from './operations/preference-operations.js';
import { createPreferences } from './settings/preferences.js';
import { createSettings } from './settings/settings.js';
import { createIconRegistry } from './icons/icon-registry.js';
import { createClusterDiscovery } from './cluster/api-resources.js';
import { createRepositoryModule, REPOSITORY_ID_LABEL } from './repositories/index.js';
import { createProjectTokens } from './projects/project-tokens.js';
import { tokenOperations } from './operations/token-operations.js';
import { repositoryOperations } from './operations/repository-operations.js';

export interface CreatePorticoOptions {
  /** Defaults to `loadConfig(env ?? process.env)`. */
  config?: PorticoConfig;
  env?: Record<string, string | undefined>;
  logger?: Logger;
  /** Inject adapters (tests, embedding); otherwise chosen by configuration. */
  cluster?: Cluster;
  kv?: KeyValue;
  /** Shows a generated initial admin password to a person (a console) instead of logging it. */
  showGeneratedPassword?: (password: string) => void;
  /**
   * Hooks around every mutating operation (audit, policy), the embedder's own: they run outside the plugins'
   * hooks and see the same operations an HTTP client's calls produce.
   */
  hooks?: readonly OperationHook[];
  /** Edition modules: their RBAC rows, operations and hooks join this Portico's (and no other's). */
  plugins?: readonly PorticoPlugin[];
}

/** The operation vocabulary of one Portico: the OSS operations and its plugins'. */
function operationDefinitions(plugins: readonly PorticoPlugin[]): (id: string) => api.OperationDefinition | undefined {
  const table = new Map<string, api.OperationDefinition>(Object.entries(api.operations));
  for (const plugin of plugins) {
    for (const [id, definition] of Object.entries(plugin.operations ?? {})) {
      if (table.has(id)) throw new Error(`operation "${id}" is defined twice`);
      table.set(id, definition);
    }
  }
  return (id) => table.get(id);
}

export async function openCluster(config: PorticoConfig, logger: Logger): Promise<Cluster> {
  if (config.cluster === 'embedded') {
    const cluster = await createEmbeddedCluster({ dataDir: config.dataDir, manifests: config.manifests, logger, kroStepMs: config.kroStepMs });
    // Let the simulated kro give the loaded RGDs their state before serving, so the catalog is never briefly
    // Inactive after a start; instances walk on while the server serves (readiness is not held for 20k of them).
    // Its timers are unref'd; hold the event loop open meanwhile.
    const keepAlive = setInterval(() => {}, 1000);
    await cluster.controller.settleRgds().finally(() => clearInterval(keepAlive));
    return cluster;
  }
  return createKubernetesCluster({ inCluster: config.kubernetes.inCluster, logger });
}

function openKeyValue(config: PorticoConfig, logger: Logger): KeyValue {
  return config.kv === 'memory'
    ? createMemoryKeyValue()
    : createRedisKeyValue({ address: config.redis.address, prefix: config.redis.prefix, logger });
}

/**
 * The embeddable entry point: wires ports, adapters and domain modules. An embedding program gets the same
 * checks, errors and events as an HTTP client, because the server is only a mapping onto this object.
 */
export async function createPortico(opts: CreatePorticoOptions = {}): Promise<Portico> {
  const env = opts.env ?? process.env;
  const config = opts.config ?? loadConfig(env);
  const logger = opts.logger ?? createLogger(config.logLevel);
  // Both throw naming the variable on a bad value, so start-up stops before anything is opened.
  const oidcProviders = loadOidcSettings({ config, env });
  const serverAdmins = [...config.serverAdmins, ...oidcServerAdmins(oidcProviders)];
  const plugins = opts.plugins ?? [];
  // Both throw on a plugin row or operation that clashes, before anything is opened.
  const vocabulary = api.createRbacVocabulary(plugins.flatMap((p) => p.rbacResources ?? []));
  const operations = createOperationRunner([...(opts.hooks ?? []), ...plugins.flatMap((p) => p.hooks ?? [])], operationDefinitions(plugins));
  const ownsCluster = !opts.cluster;
  const ownsKv = !opts.kv;
  const cluster = opts.cluster ?? (await openCluster(config, logger));
  const kv = opts.kv ?? openKeyValue(config, logger);
  const opened: Array<() => unknown> = [];
  // A start that fails part-way (the key-value store down during the auth bootstrap, say) must not leave
  // connections, watches and timers behind in an embedding program.
  const release = async () => {
    for (const close of opened.splice(0).reverse()) await Promise.resolve(close()).catch(() => undefined);
    if (ownsKv) await kv.close().catch(() => undefined);
    if (ownsCluster) await cluster.close().catch(() => undefined);
  };
  try {
    return await assemble();
  } catch (err) {
    await release();
    throw err;
  }

  async function assemble(): Promise<Portico> {
    const limits = createLimits({ kv, config, env, logger });

    const projectInformer = createInformer(cluster, resources.project, { namespace: config.kubernetes.namespace, logger });
    const rgdInformer = createInformer(cluster, resources.rgd, { logger });
    opened.push(() => projectInformer.stop(), () => rgdInformer.stop());
    const authz = createAuthorizer({ projects: projectInformer, policyOf: projectPolicySource, serverAdmins, logger, vocabulary });

    // The catalog shows per-RGD instance counts and the instance index needs the catalog: bind late.
    let instancesBound: Instances | undefined;
    const catalog = createCatalog({
      rgds: rgdInformer,
      authz,
      logger,
      revisionStore: createRevisionStore(cluster, config.kubernetes.namespace),
      instanceCounts: (actor, names) => instancesBound?.instanceCounts(actor, names) ?? new Map(),
      // Before the instances are bound every count is 0: a revision no index has.
      instanceCountsRevision: () => instancesBound?.index.countsRevision() ?? -1,
    });

    await Promise.all([projectInformer.start(), rgdInformer.start()]);
    await authz.ready();

    // Sign-in providers managed at run time (§11.6) join those of the environment, on every replica.
    const ssoRegistry = createSsoProviderRegistry({ cluster, namespace: config.kubernetes.namespace, logger, reserved: new Set(oidcProviders.map((p) => p.name)) });
    opened.push(() => ssoRegistry.stop());
    await ssoRegistry.start();
    const identityProviders = createOidc({ providers: oidcProviders, runtime: ssoRegistry, config, kv, cluster, logger });
    const events = createEvents({ kv, logger });
    opened.push(() => events.close());
    // §14: project tokens are checked by auth on every request and signed by it: each needs the other.
    const projectTokens = createProjectTokens({ cluster, projects: projectInformer, namespace: config.kubernetes.namespace, authz, kv, logger, auth: () => auth.projectTokens });
    const auth = await createAuth({ config, cluster, kv, authz, logger, lockout: limits.lockout, identityProviders, bus: events, showGeneratedPassword: opts.showGeneratedPassword, projectTokenValid: projectTokens.valid });
    const access = createAccess({ authz, projects: projectInformer, config, vocabulary });
    const secrets = createSecrets({ cluster, projects: projectInformer, authz, config, instancesInProject: (project) => instancesBound?.index.inProject(project) ?? [] });
    // §13: the projects' Git repositories, and the commits Git-mode instances push through them.
    const repositories = createRepositoryModule({
      cluster, kv, config, authz, logger,
      projectNames: () => projectInformer.list().map((p) => p.metadata.name),
      instancesUsing: (project, id) => [...(instancesBound?.index.inProject(project) ?? [])].filter((i) => i.object.metadata.labels?.[REPOSITORY_ID_LABEL] === id).length,
    });
    opened.push(() => repositories.stop());
    const instances = createInstances({
      cluster, catalog, authz, projects: projectInformer, events, config, logger, createInformer, git: repositories.deployments,
      claim: (key, ttlMs) => kv.set(key, '1', { ttlMs, ifAbsent: true }),
    });
    opened.push(() => instances.stop());
    // A project's cascade deletes its instances through the wrapped service: each deletion is an operation.
    const wrappedInstances = operations.wrap(instances, instanceOperations);
    const projects = createProjects({
      cluster, projects: projectInformer, authz, config, logger, events, catalog,
      instances: { index: instances.index, service: wrappedInstances },
      validateRoles: (project, roles) => validateRoles(project, roles, vocabulary),
    });
    instancesBound = instances;
    await instances.start();
    // Icons follow their ConfigMaps from here on; start-up does not wait for them (they are decoration).
    const icons = createIconRegistry({ cluster, namespace: config.kubernetes.namespace, logger });
    opened.push(() => icons.stop());
    icons.start();

    const readiness = async (): Promise<api.Readyz> => {
      const components: api.Readyz['components'] = {
        keyvalue: await kv.health().catch((e: Error) => ({ ok: false, message: e.message })),
        cluster: cluster.health(),
        'watch:projects': projectInformer.health(),
        'watch:rgds': rgdInformer.health(),
      };
      const ok = Object.values(components).every((c) => c.ok);
      return { status: ok ? 'ok' : 'unavailable', components };
    };

    const streams = new Set<EventStream>();
    let stopped = false;
    return {
      config,
      logger,
      cluster,
      kv,
      authz,
      auth: operations.wrap(auth, authOperations),
      accounts: operations.wrap(auth.accounts, accountOperations),
      catalog,
      projects: operations.wrap(projects, projectOperations),
      secrets: operations.wrap(secrets, secretOperations),
      access,
      instances: wrappedInstances,
      ssoProviders: operations.wrap(
        createSsoProviders({ cluster, namespace: config.kubernetes.namespace, registry: ssoRegistry, fixed: oidcProviders, authz, settingsObject: vocabulary.object('settings'), logger }),
        ssoProviderOperations,
      ),
      repositories: operations.wrap(repositories.service, repositoryOperations),
      projectTokens: operations.wrap(projectTokens, tokenOperations),
      settings: createSettings(config),
      preferences: operations.wrap(createPreferences(kv), preferenceOperations),
      icons,
      clusterDiscovery: createClusterDiscovery({ cluster, authz, vocabulary }),
      events,
      projectObjects: projectInformer,
      limits,
      vocabulary,
      operations,
      eventStreams: {
        add(stream) {
          streams.add(stream);
          return { close: () => void streams.delete(stream) };
        },
        list: () => [...streams],
      },
      readiness,
      async stop() {
        if (stopped) return;
        stopped = true;
        await release();
      },
    };
  }
}
