import type { Queryable } from './db.js';
import { isUnfiltered, whereOf, type WhereClause } from './filter-sql.js';
import { eventColumns, eventOf, type AuditRow } from './row.js';
import type { AuditEvent, AuditFilter } from './types.js';

export interface AuditPageRequest {
  filter: AuditFilter;
  page: number;
  pageSize: number;
  /** Cursor: the page starts after (older than) this id; `page` is then ignored. */
  after?: string;
}

export interface AuditPage {
  events: AuditEvent[];
  total: number;
  page: number;
  pageSize: number;
  nextCursor?: string;
}

/** Events in the trail now, as column `n`: the head's position minus what retention removed, without counting the table. */
export const chainLengthSql = 'SELECT seq - anchor_seq AS n FROM audit_chain WHERE id = 1';

/** How many events match, as column `n`: for no filter, the chain's length. */
const countSql = (filter: AuditFilter, where: WhereClause) =>
  isUnfiltered(filter) ? chainLengthSql : `SELECT count(*) AS n FROM audit_events ${where.sql}`;

/**
 * Newest first. One statement answers the page and the total, as for the violation history: one snapshot, so an
 * event appended meanwhile cannot be counted but missing from the page, and one pooled connection per listing.
 * The page joins onto the count, so a page past the end still carries the total, in a row without an event.
 * One row more than the page tells whether a next page exists.
 */
export async function listEvents(db: Queryable, req: AuditPageRequest): Promise<AuditPage> {
  // The cursor's bound comes last, so the count's parameters are the first ones of the page's.
  const counted = whereOf(req.filter);
  const paged = whereOf(req.filter, { beforeId: req.after });
  const offset = req.after === undefined ? (req.page - 1) * req.pageSize : 0;
  const pageSql = `SELECT ${eventColumns} FROM audit_events ${paged.sql} ORDER BY id DESC LIMIT ${req.pageSize + 1} OFFSET ${offset}`;
  const { rows } = await db.query<AuditRow & { total: string }>(
    `SELECT e.*, t.n AS total FROM (${countSql(req.filter, counted)}) AS t LEFT JOIN (${pageSql}) AS e ON true ORDER BY e.id DESC`,
    paged.values,
  );
  const found = rows.filter((row) => row.id !== null);
  const more = found.length > req.pageSize;
  const events = found.slice(0, req.pageSize).map(eventOf);
  const page: AuditPage = { events, total: Number(rows[0].total), page: req.after === undefined ? req.page : 1, pageSize: req.pageSize };
  if (more) page.nextCursor = events[events.length - 1].id;
  return page;
}

export async function getEvent(db: Queryable, id: string): Promise<AuditEvent | undefined> {
  const { rows } = await db.query<AuditRow>(`SELECT ${eventColumns} FROM audit_events WHERE id = $1`, [id]);
  return rows[0] ? eventOf(rows[0]) : undefined;
}
