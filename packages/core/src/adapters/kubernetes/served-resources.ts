import type { Logger } from '../../logger.js';
import type { ResourceRef } from '../../ports/cluster.js';
import type { ApiResource } from './discovery.js';

/** One group of an `APIGroupList` (GET /apis). */
interface ApiGroup {
  name: string;
  versions: { version: string }[];
}

export interface ServedResourcesDeps {
  /** GET /apis: the groups beside the core one. */
  groups(): Promise<ApiGroup[]>;
  /** GET /api/v1 or /apis/<group>/<version>: undefined when not served. */
  resources(group: string, version: string): Promise<ApiResource[] | undefined>;
  logger: Logger;
  /** How long one answer is reused (default 30 s): a dialog may ask on every keystroke. */
  ttlMs?: number;
  now?: () => number;
}

/**
 * Every kind the API server serves, from discovery: the core group's `v1` and every version of every group.
 * Subresources (`pods/log`, `deployments/scale`) are left out. A group version whose discovery fails (an
 * aggregated API that is down, say) is left out and logged, as kubectl does, rather than failing the whole answer.
 */
export function createServedResources(deps: ServedResourcesDeps): () => Promise<ResourceRef[]> {
  const ttlMs = deps.ttlMs ?? 30_000;
  const now = deps.now ?? Date.now;
  let cached: { at: number; refs: Promise<ResourceRef[]> } | undefined;

  const load = async (): Promise<ResourceRef[]> => {
    const versions: { group: string; version: string }[] = [{ group: '', version: 'v1' }];
    for (const group of await deps.groups()) {
      for (const { version } of group.versions ?? []) versions.push({ group: group.name, version });
    }
    const lists = await Promise.all(
      versions.map(({ group, version }) =>
        deps.resources(group, version).catch((err: unknown) => {
          deps.logger.warn({ group, version, err: String(err) }, 'discovery of a group version failed; its kinds are left out');
          return undefined;
        }),
      ),
    );
    return lists.flatMap((list, i) =>
      (list ?? [])
        .filter((r) => !r.name.includes('/'))
        .map((r) => ({ group: versions[i]!.group, version: versions[i]!.version, kind: r.kind, plural: r.name, namespaced: r.namespaced })),
    );
  };

  return () => {
    if (!cached || now() - cached.at >= ttlMs) {
      const refs = load();
      cached = { at: now(), refs };
      refs.catch(() => (cached = undefined)); // a failure is not remembered
    }
    return cached.refs.then((refs) => refs.map((ref) => ({ ...ref })));
  };
}
