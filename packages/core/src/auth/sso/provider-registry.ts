import { createInformer } from '../../cluster/informer.js';
import type { Informer } from '../../cluster/informer-types.js';
import type { WriteTarget } from '../../cluster/resource-version.js';
import type { Logger } from '../../logger.js';
import { resources, type Cluster, type ComponentHealth } from '../../ports/cluster.js';
import { waitForInformer } from '../../projects/wait-for-informer.js';
import type { RuntimeProviderSource } from '../oidc/provider-set.js';
import type { OidcProviderSettings } from '../oidc/settings.js';
import { isProviderObject, objectNameOf, parseProvider, providerNameOf } from './provider-objects.js';

/**
 * The sign-in providers managed at run time, as this replica sees them: ConfigMaps and Secrets of Portico's
 * namespace watched with informers, so a change made through any replica (or with kubectl) applies here within
 * a watch event, without a restart.
 */
export interface SsoProviderRegistry extends RuntimeProviderSource {
  /** Every provider with a valid ConfigMap, usable or not (one whose Secret has no client ID yet: `clientId` ''). */
  known(): readonly OidcProviderSettings[];
  /** Resolves once this replica's caches show the writes (or after a few seconds: the writes themselves succeeded). */
  caughtUp(provider: string, writes: { configMap: WriteTarget; secret: WriteTarget }): Promise<void>;
  start(): Promise<void>;
  stop(): void;
  health(): ComponentHealth;
}

export interface SsoProviderRegistryDeps {
  cluster: Cluster;
  namespace: string;
  logger: Logger;
  /** Names the environment defines: a ConfigMap of the same name is ignored (the environment's provider wins). */
  reserved: ReadonlySet<string>;
  /** Informers over ConfigMaps and Secrets (tests pass their own). */
  createInformer?: typeof createInformer;
}

export function createSsoProviderRegistry(deps: SsoProviderRegistryDeps): SsoProviderRegistry {
  const { namespace, reserved } = deps;
  const log = deps.logger.child({ module: 'sso-providers' });
  const inform = deps.createInformer ?? createInformer;
  const configMaps: Informer = inform(deps.cluster, resources.configMap, { namespace, logger: log });
  const secrets: Informer = inform(deps.cluster, resources.secret, { namespace, logger: log });

  let built: { known: OidcProviderSettings[]; usable: OidcProviderSettings[] } | undefined;
  const reported = new Set<string>();

  /** Rebuilt on the first read after a change, so a burst of Secret writes (local accounts) costs one rebuild. */
  const build = () => {
    if (built) return built;
    const known: OidcProviderSettings[] = [];
    for (const configMap of configMaps.list()) {
      if (!isProviderObject(configMap)) continue;
      const name = providerNameOf(configMap)!;
      const version = `${configMap.metadata.uid}@${configMap.metadata.resourceVersion}`;
      if (reserved.has(name)) {
        if (!reported.has(version)) log.warn({ provider: name, configMap: configMap.metadata.name }, 'ignored: a provider of this name is configured in the environment');
        reported.add(version);
        continue;
      }
      const parsed = parseProvider(configMap, secrets.get(objectNameOf(name), namespace));
      if (parsed.ok) known.push(parsed.settings);
      else {
        if (!reported.has(version)) log.warn({ provider: name, configMap: configMap.metadata.name, reason: parsed.reason }, 'ignored: invalid sign-in provider settings');
        reported.add(version);
      }
    }
    if (reported.size > 1000) reported.clear(); // a record of what was logged, not of every version ever seen
    known.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    built = { known, usable: known.filter((p) => p.clientId !== '') };
    return built;
  };
  const invalidate = () => {
    built = undefined;
  };
  configMaps.on(invalidate);
  secrets.on(invalidate);

  return {
    providers: () => build().usable,
    known: () => build().known,
    async caughtUp(provider, writes) {
      const name = objectNameOf(provider);
      await Promise.all([waitForInformer(configMaps, name, namespace, writes.configMap), waitForInformer(secrets, name, namespace, writes.secret)]);
    },
    async start() {
      await Promise.all([configMaps.start(), secrets.start()]);
    },
    stop() {
      configMaps.stop();
      secrets.stop();
    },
    health() {
      const problem = [configMaps.health(), secrets.health()].find((h) => !h.ok);
      return problem ?? { ok: true };
    },
  };
}
