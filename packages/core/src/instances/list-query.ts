import { matchesLabelSelector } from '@portico/api';
import type * as api from '@portico/api';
import type { Actor } from '../actor.js';
import { jsonText, withJsonText } from '../json-text.js';
import { labelRequirements } from '../label-selector.js';
import type { PageMemo } from '../page-memo.js';
import type { Authorizer } from '../types.js';
import type { IndexedInstance, InstanceIndex } from './instance-index.js';

/**
 * What `actor` may see of the index: every project (`undefined`, a Server Admin), or the member projects where
 * its roles reach instances, with those whose rules are item-level (`some`) named so each of their instances is
 * decided with `can`. Decided per role from its compiled policy lines, not per instance.
 */
interface Reach {
  projects?: string[];
  itemLevel: ReadonlySet<string>;
}

function reachOf(authz: Authorizer, actor: Actor, onlyProject?: string): Reach {
  if (authz.isServerAdmin(actor)) return { projects: onlyProject === undefined ? undefined : [onlyProject], itemLevel: new Set() };
  const projects: string[] = [];
  const itemLevel = new Set<string>();
  for (const project of authz.memberProjects(actor)) {
    if (onlyProject !== undefined && project !== onlyProject) continue;
    const reach = authz.instanceReach(actor, project);
    if (reach === 'none') continue;
    projects.push(project);
    if (reach === 'some') itemLevel.add(project);
  }
  return { projects, itemLevel };
}


/** How many instances `actor` may see: maintained counts for whole projects, a counted walk for item-level ones. */
export function visibleCount(index: InstanceIndex, authz: Authorizer, actor: Actor): number {
  const reach = reachOf(authz, actor);
  if (!reach.projects) return index.size();
  let count = 0;
  for (const project of reach.projects) {
    if (!reach.itemLevel.has(project)) count += index.size(project);
    else for (const item of index.inProject(project)) if (authz.can(actor, 'get', item.rbacObject)) count++;
  }
  return count;
}

/**
 * Instances per RGD name that `actor` may see, from the maintained per-project counts where roles allow; with
 * `names` (a page of RGDs), only those are counted, so the cost follows the page, not every RGD in use.
 */
export function visibleRgdCounts(index: InstanceIndex, authz: Authorizer, actor: Actor, names?: readonly string[]): ReadonlyMap<string, number> {
  const reach = reachOf(authz, actor);
  if (!reach.projects) return index.rgdCounts();
  const counts = new Map<string, number>();
  const add = (rgd: string, n: number) => counts.set(rgd, (counts.get(rgd) ?? 0) + n);
  const asked = names && new Set(names);
  for (const project of reach.projects) {
    if (!reach.itemLevel.has(project)) {
      const inProject = index.rgdCounts(project);
      if (asked === undefined) for (const [rgd, n] of inProject) add(rgd, n);
      else for (const rgd of asked) add(rgd, inProject.get(rgd) ?? 0);
    }
    else for (const item of index.inProject(project)) if (authz.can(actor, 'get', item.rbacObject)) add(item.instance.rgdName, 1);
  }
  return counts;
}

/**
 * One page of what `actor` may see, read from a sorted view (filters by project, namespace, kind, rgdName and
 * health are served by the view; the sort is the view's order, ties broken by id; `desc` reads it backwards).
 * Without a search, a label selector and item-level rules the page is read by position and totalCount is the
 * view's size: O(page + log n). Otherwise the view is walked in order, counting matches (the fallback the design allows).
 * The answer carries its JSON, spliced from each instance's own (serialised once per resourceVersion). A page read
 * by position is kept in `answered` with the view's version, for every caller whose reach reads the same view.
 */
export function listPage(index: InstanceIndex, authz: Authorizer, actor: Actor, query: api.InstanceListQuery, answered?: PageMemo<api.InstanceList>): api.InstanceList {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? 20;
  const first = (page - 1) * pageSize;
  const selector = labelRequirements(query.labelSelector);
  const reach = reachOf(authz, actor, query.project);
  let items: IndexedInstance[] = [];
  let totalCount = 0;
  let keep: ((list: api.InstanceList, text: string) => api.InstanceList) | undefined;
  if (!reach.projects || reach.projects.length > 0) {
    const sorted = index.view({
      projects: reach.projects,
      namespace: query.namespace,
      kind: query.kind,
      rgdName: query.rgdName,
      health: query.health,
      sortBy: query.sortBy ?? 'name',
    });
    const view = sorted.items;
    const at = query.sortOrder === 'desc' ? (i: number) => view[view.length - 1 - i] : (i: number) => view[i];
    const search = query.search?.trim().toLowerCase();
    if (!search && !selector && reach.itemLevel.size === 0) {
      const key = `${sorted.key}\u0000${query.sortOrder === 'desc' ? 'desc' : 'asc'}\u0000${page}:${pageSize}`;
      const kept = answered?.get(key, sorted, sorted.version);
      if (kept) return kept;
      keep = answered && ((list, text) => answered.keep(key, sorted, sorted.version, list, text.length));
      totalCount = view.length;
      for (let i = first; i < Math.min(view.length, first + pageSize); i++) items.push(at(i));
    } else {
      const matches = (item: IndexedInstance) =>
        (!search || item.instance.name.toLowerCase().includes(search)) &&
        (!selector || matchesLabelSelector(selector, item.instance.labels)) &&
        (!reach.itemLevel.has(item.project) || authz.can(actor, 'get', item.rbacObject));
      items = [];
      for (let i = 0; i < view.length; i++) {
        const item = at(i);
        if (!matches(item)) continue;
        if (totalCount >= first && items.length < pageSize) items.push(item);
        totalCount++;
      }
    }
  }
  const list: api.InstanceList = { items: items.map((i) => i.instance), totalCount, page, pageSize };
  const text = `{"items":[${list.items.map(jsonText).join(',')}],"totalCount":${totalCount},"page":${page},"pageSize":${pageSize}}`;
  withJsonText(list, text);
  if (!keep) return list;
  Object.freeze(list.items);
  return keep(list, text);
}
