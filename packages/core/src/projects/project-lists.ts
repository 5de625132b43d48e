import type * as api from '@portico/api';
import { rbacObject } from '@portico/api';
import { actorKey, type Actor } from '../actor.js';
import { setBounded } from '../bounded-map.js';
import type { Informer } from '../cluster/informer-types.js';
import { deepFreeze } from '../freeze.js';
import { jsonText, withJsonText } from '../json-text.js';
import type { KubeObject } from '../ports/cluster.js';
import type { Authorizer } from '../types.js';
import { projectView } from './project-resource.js';

/** Members' project lists kept at once (distinct sets of subjects); the oldest goes first. */
const maxMemberLists = 1_000;

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The project list per caller: a Server Admin's (every project, with every role and binding) until a project
 * changes; each member's, by the subjects its decisions depend on (`actorKey`), until a project or the policy
 * changes: the project list is read on every page load, and for a member it is the same until then.
 */
export function createProjectLists(projects: Informer, authz: Authorizer, namespace: string, cached: (name: string) => KubeObject | undefined) {
  let everyProject: api.ProjectList | undefined;
  const memberLists = new Map<string, api.ProjectList>();
  const forgetLists = () => {
    everyProject = undefined;
    memberLists.clear();
  };
  projects.on(forgetLists);
  authz.onChange(forgetLists);
  // The list spliced from each project's own JSON text (made once per version), not serialised again.
  const projectList = (items: api.Project[]): api.ProjectList =>
    withJsonText({ items, totalCount: items.length }, `{"items":[${items.map(jsonText).join(',')}],"totalCount":${items.length}}`);

  return (actor: Actor): api.ProjectList => {
    // Frozen: it is shared by every Server Admin's request until a project changes (and so sent as kept bytes).
    if (authz.isServerAdmin(actor)) {
      return (everyProject ??= deepFreeze(projectList(
        projects
          .list()
          .filter((o) => o.metadata.namespace === namespace)
          .map(projectView)
          .sort(byName),
      )));
    }
    const key = actorKey(actor);
    let list = memberLists.get(key);
    if (!list) {
      const items = authz
        .memberProjects(actor)
        .flatMap((p) => cached(p) ?? [])
        .filter((o) => authz.can(actor, 'get', rbacObject.project(o.metadata.name)))
        .map(projectView)
        .sort(byName);
      list = setBounded(memberLists, maxMemberLists, key, deepFreeze(projectList(items)));
    }
    return list;
  };
}
