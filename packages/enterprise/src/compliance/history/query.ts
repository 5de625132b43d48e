import type { ViolationHistoryList, ViolationHistoryRecord } from '@portico/api/enterprise';
import type { Queryable } from '../../audit/db.js';
import { historyWhere, type HistoryFilter, type HistoryScope } from './filter-sql.js';

/**
 * The record's fields as PostgreSQL hands them over: timestamps already RFC 3339 text (as `toISOString`
 * writes them), so a listing and an export print rows without converting them one by one.
 */
export const recordColumns = `key, constraint_kind AS "constraintKind", constraint_name AS "constraintName", resource_kind AS "resourceKind",
  resource_namespace AS "resourceNamespace", resource_name AS "resourceName", enforcement_action AS "enforcementAction", message,
  to_char(first_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "firstSeen",
  to_char(resolved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "resolvedAt", status`;

/** Newest first seen first; `id` breaks ties so pages never overlap. */
export const recordOrder = 'ORDER BY first_seen DESC, id DESC';

/**
 * One page and the total in one statement (one snapshot: a record written meanwhile cannot be counted but
 * missing from the page). A page past the end has no row to carry the total, so it is counted apart.
 */
export async function listHistory(db: Queryable, scope: HistoryScope, filter: HistoryFilter, page: number, pageSize: number): Promise<ViolationHistoryList> {
  const where = historyWhere(scope, filter);
  const { rows } = await db.query<ViolationHistoryRecord & { total: string }>(
    `SELECT ${recordColumns}, count(*) OVER () AS total FROM violation_history ${where.sql} ${recordOrder} LIMIT ${pageSize} OFFSET ${(page - 1) * pageSize}`,
    where.values,
  );
  const total = rows.length > 0 ? Number(rows[0].total) : await countHistory(db, scope, filter);
  return { items: rows.map(({ total: _total, ...record }) => record), total, page, pageSize };
}

export async function countHistory(db: Queryable, scope: HistoryScope, filter: HistoryFilter): Promise<number> {
  const where = historyWhere(scope, filter);
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM violation_history ${where.sql}`, where.values);
  return Number(rows[0].n);
}
