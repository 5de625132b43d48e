import type * as api from '@portico/api';
import type { Actor } from '../actor.js';
import type { Authorizer } from '../types.js';
import type { IndexedInstance, InstanceIndex } from './instance-index.js';

/**
 * The instances `actor` may `get`, read from the index project by project: only the actor's member projects
 * (every project for a Server Admin), so a request never walks instances of projects it has no role in.
 */
export function* visibleInstances(index: InstanceIndex, authz: Authorizer, actor: Actor, onlyProject?: string): Generator<IndexedInstance> {
  const projects = authz.isServerAdmin(actor) ? index.projects() : authz.memberProjects(actor);
  for (const project of projects) {
    if (onlyProject !== undefined && project !== onlyProject) continue;
    for (const item of index.inProject(project)) if (authz.can(actor, 'get', item.rbacObject)) yield item;
  }
}

type Filter = Pick<api.InstanceListQuery, 'namespace' | 'rgdName' | 'kind' | 'health' | 'search'>;

export function matcherFor(query: Filter): (item: IndexedInstance) => boolean {
  const search = query.search?.trim().toLowerCase();
  return ({ instance: i }) =>
    (query.namespace === undefined || i.namespace === query.namespace) &&
    (query.rgdName === undefined || i.rgdName === query.rgdName) &&
    (query.kind === undefined || i.kind === query.kind) &&
    (query.health === undefined || i.health === query.health) &&
    (!search || i.name.toLowerCase().includes(search));
}

type SortBy = api.InstanceListQuery['sortBy'];

const sortValue: Record<SortBy, (i: api.Instance) => string | number> = {
  name: (i) => i.name,
  namespace: (i) => i.namespace,
  kind: (i) => i.kind,
  project: (i) => i.project,
  health: (i) => i.health,
  createdAt: (i) => Date.parse(i.createdAt) || 0,
  updatedAt: (i) => Date.parse(i.updatedAt) || 0,
};

const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

/** Sorts by the field, then by namespace/kind/name so pages are stable; `desc` reverses the whole order. */
export function comparatorFor(sortBy: SortBy, order: 'asc' | 'desc'): (a: IndexedInstance, b: IndexedInstance) => number {
  const value = sortValue[sortBy] ?? sortValue.name;
  const sign = order === 'desc' ? -1 : 1;
  return (a, b) => sign * (compare(value(a.instance), value(b.instance)) || compare(a.id, b.id));
}

/** Filters, sorts and pages; totalCount counts every visible match, not the page. */
export function listPage(items: Iterable<IndexedInstance>, query: api.InstanceListQuery): api.InstanceList {
  const matches = matcherFor(query);
  const all: IndexedInstance[] = [];
  for (const item of items) if (matches(item)) all.push(item);
  all.sort(comparatorFor(query.sortBy ?? 'name', query.sortOrder ?? 'asc'));
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? 20;
  const first = (page - 1) * pageSize;
  return { items: all.slice(first, first + pageSize).map((i) => i.instance), totalCount: all.length, page, pageSize };
}
