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
}

/**
 * Every kind the API server serves, from discovery: the core group's `v1` and every version of every group.
 * Subresources (`pods/log`, `deployments/scale`) are left out. A group version whose discovery fails (an
 * aggregated API that is down, say) is left out and logged, as kubectl does, rather than failing the whole answer.
 * The group list is asked every time (one request: a CRD's new group shows at once); each group version's list
 * comes through the discovery cache (`resources`), so a dialog asking on every keystroke costs one request.
 */
export function createServedResources(deps: ServedResourcesDeps): () => Promise<ResourceRef[]> {
  return async (): Promise<ResourceRef[]> => {
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
}
