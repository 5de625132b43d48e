import type { WhereClause } from '../../audit/filter-sql.js';

/** Which rows a caller may see: all of them (Server Admin) or those of some projects. */
export type HistoryScope = { all: true } | { all: false; projects: readonly string[] };

/** A history query in domain terms (the route's query, parsed). */
export interface HistoryFilter {
  since?: Date;
  until?: Date;
  enforcement?: string;
  constraint?: { kind: string; name: string };
  resource?: { kind: string; namespace: string; name: string };
  status: 'active' | 'resolved' | 'all';
}

/** `Kind/name` of the `constraint` filter. */
export function constraintOf(text: string): HistoryFilter['constraint'] {
  const [kind, name] = text.split('/');
  return { kind, name };
}

/** `Kind/namespace/name`, or `Kind/name` for a cluster-scoped resource (empty namespace). */
export function resourceOf(text: string): HistoryFilter['resource'] {
  const parts = text.split('/');
  return parts.length === 3 ? { kind: parts[0], namespace: parts[1], name: parts[2] } : { kind: parts[0], namespace: '', name: parts[1] };
}

/**
 * The WHERE clause of a listing, count or export: the caller's scope first, then the filters. `since`/`until`
 * keep the records active at some moment of the window (first seen by `until`, not resolved before `since`).
 */
export function historyWhere(scope: HistoryScope, filter: HistoryFilter): WhereClause {
  const parts: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, ...vals: unknown[]) => {
    let i = 0;
    parts.push(sql.replace(/\?/g, () => `$${values.length + ++i}`));
    values.push(...vals);
  };
  if (!scope.all) add('project = ANY(?::text[])', scope.projects);
  if (filter.since) add('(resolved_at IS NULL OR resolved_at >= ?)', filter.since.toISOString());
  if (filter.until) add('first_seen <= ?', filter.until.toISOString());
  if (filter.enforcement) add('enforcement_action = ?', filter.enforcement);
  if (filter.constraint) add('constraint_kind = ? AND constraint_name = ?', filter.constraint.kind, filter.constraint.name);
  if (filter.resource) add('resource_kind = ? AND resource_namespace = ? AND resource_name = ?', filter.resource.kind, filter.resource.namespace, filter.resource.name);
  if (filter.status !== 'all') add('status = ?', filter.status);
  return { sql: parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '', values };
}
