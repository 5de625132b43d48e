import { encodeTime } from 'ulid';
import type { AuditFilter } from './types.js';

const MAX_TIME = 2 ** 48 - 1;

/** The smallest ULID of a millisecond: ids at or after `at` are `>=` it (an id's time part is its timestamp). */
const idFloor = (at: Date) => `${encodeTime(Math.min(Math.max(0, at.getTime()), MAX_TIME), 10)}${'0'.repeat(16)}`;

export interface WhereClause {
  sql: string;
  values: unknown[];
}

/**
 * The WHERE clause of a listing or an export. Time bounds become id bounds, so `user + last 24 h` is one
 * range scan of the (user_id, id) index read newest first. `to` is inclusive to the millisecond.
 */
export function whereOf(filter: AuditFilter, extra: { beforeId?: string } = {}): WhereClause {
  const parts: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    parts.push(sql.replace('?', `$${values.length}`));
  };
  if (filter.userId !== undefined) add('user_id = ?', filter.userId);
  if (filter.action !== undefined) add('action = ?', filter.action);
  if (filter.resource !== undefined) add('resource = ?', filter.resource);
  if (filter.project !== undefined) add('project = ?', filter.project);
  if (filter.namespace !== undefined) add('namespace = ?', filter.namespace);
  if (filter.result !== undefined) add('result = ?', filter.result);
  if (filter.from !== undefined) add('id >= ?', idFloor(filter.from));
  if (filter.to !== undefined) add('id < ?', idFloor(new Date(filter.to.getTime() + 1)));
  if (extra.beforeId !== undefined) add('id < ?', extra.beforeId);
  return { sql: parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '', values };
}

export const isUnfiltered = (filter: AuditFilter) => Object.values(filter).every((v) => v === undefined);
