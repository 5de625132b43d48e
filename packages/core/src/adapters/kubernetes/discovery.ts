import type { ResourceRef } from '../../ports/cluster.js';

/** One entry of an `APIResourceList` (GET /apis/<group>/<version>). */
export interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs?: string[];
}

export interface DiscoveryOptions {
  /** How long a group/version's resource list is trusted (default 30 s). */
  ttlMs?: number;
  /**
   * A kind missing from a cached list is looked up again once the list is this old (default 1 s): kro
   * registers an instance kind moments after its RGD is created, and a catalog asking right then must see it.
   */
  missRefreshMs?: number;
  now?: () => number;
}

interface Entry {
  fetchedAt: number;
  /** undefined when the API server does not serve the group/version (404). */
  resources: ApiResource[] | undefined;
}

/**
 * Kubernetes discovery with a short per-group/version cache: plural and scope of a kind. Concurrent lookups
 * of one group/version share a single request.
 */
export function createDiscovery(fetchResources: (group: string, version: string) => Promise<ApiResource[] | undefined>, opts: DiscoveryOptions = {}) {
  const ttlMs = opts.ttlMs ?? 30_000;
  const missRefreshMs = opts.missRefreshMs ?? 1_000;
  const now = opts.now ?? Date.now;
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<Entry>>();

  const load = (group: string, version: string): Promise<Entry> => {
    const key = `${group}/${version}`;
    let pending = inFlight.get(key);
    if (!pending) {
      pending = fetchResources(group, version)
        .then((resources) => {
          const entry = { fetchedAt: now(), resources };
          cache.set(key, entry);
          return entry;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  };

  // Subresources (`projects/status`, `namespaces/finalize`) share the kind of their parent: skip them.
  const find = (entry: Entry, kind: string) => entry.resources?.find((r) => r.kind === kind && !r.name.includes('/'));

  const toRef = (group: string, version: string, r: ApiResource): ResourceRef => ({
    group,
    version,
    kind: r.kind,
    plural: r.name,
    namespaced: r.namespaced,
  });

  return {
    /** The group/version's whole resource list (cached as for `discover`); undefined when it is not served. */
    async resources(group: string, version: string): Promise<ApiResource[] | undefined> {
      const entry = cache.get(`${group}/${version}`);
      return (entry && now() - entry.fetchedAt < ttlMs ? entry : await load(group, version)).resources;
    },

    async discover(group: string, version: string, kind: string): Promise<ResourceRef | undefined> {
      let entry = cache.get(`${group}/${version}`);
      const age = entry ? now() - entry.fetchedAt : Infinity;
      if (!entry || age >= ttlMs || (!find(entry, kind) && age >= missRefreshMs)) entry = await load(group, version);
      const found = find(entry, kind);
      return found && toRef(group, version, found);
    },
  };
}
