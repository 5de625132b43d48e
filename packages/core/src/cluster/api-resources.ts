import { ApiResourcesQuery, type ApiResource, type RbacVocabulary } from '@portico/api';
import type { Actor } from '../actor.js';
import { forbidden } from '../errors.js';
import type { Cluster } from '../ports/cluster.js';
import type { Authorizer, ClusterDiscoveryService } from '../types.js';
import { parseInput } from '../validation.js';

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** `apiGroup=core` names the core group, whose name is empty. */
const CORE = 'core';

/**
 * Cluster discovery for the dialogs that pick kinds (a compliance constraint's `match.kinds`): read through the
 * Cluster port, so the embedded cluster answers with what it serves and a real one with its discovery. Only a
 * Server Admin, or whoever may create compliance constraints, may ask: the list says which operators and CRDs
 * a cluster runs.
 */
export function createClusterDiscovery(deps: { cluster: Pick<Cluster, 'apiResources'>; authz: Authorizer; vocabulary: Pick<RbacVocabulary, 'object'> }): ClusterDiscoveryService {
  const complianceObject = deps.vocabulary.object('compliance');
  return {
    async apiResources(actor, rawQuery = {}) {
      if (!deps.authz.isServerAdmin(actor) && !deps.authz.can(actor, 'create', complianceObject)) {
        throw forbidden('listing the cluster\'s API resources needs a Server Admin or a `compliance` create policy', { resource: complianceObject, action: 'create' });
      }
      const query = parseInput(ApiResourcesQuery, rawQuery, 'query');
      const group = query.apiGroup === undefined || query.apiGroup === '' ? undefined : query.apiGroup === CORE ? '' : query.apiGroup;
      const search = query.search?.toLowerCase();
      const seen = new Set<string>();
      const resources: ApiResource[] = [];
      for (const ref of await deps.cluster.apiResources()) {
        if (group !== undefined && ref.group !== group) continue;
        if (search && !ref.kind.toLowerCase().includes(search)) continue;
        const key = `${ref.group}/${ref.kind}`;
        if (seen.has(key)) continue; // one entry per group and kind, whatever the versions
        seen.add(key);
        resources.push({ apiGroup: ref.group, kind: ref.kind });
      }
      // Core first (its name is empty, so it sorts first), then by group and kind, in code-point order.
      resources.sort((a, b) => compare(a.apiGroup, b.apiGroup) || compare(a.kind, b.kind));
      return { resources, count: resources.length };
    },
  };
}
