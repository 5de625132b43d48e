import type { Queryable } from './db.js';
import { isUnfiltered, whereOf } from './filter-sql.js';
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

/** Rows in the chain now: the head's position minus what retention removed, without counting the table. */
async function chainLength(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT seq - anchor_seq AS n FROM audit_chain WHERE id = 1');
  return Number(rows[0].n);
}

async function countMatching(db: Queryable, filter: AuditFilter): Promise<number> {
  if (isUnfiltered(filter)) return chainLength(db);
  const where = whereOf(filter);
  const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM audit_events ${where.sql}`, where.values);
  return Number(rows[0].n);
}

/** Newest first. One row more than the page tells whether a next page exists without a second query. */
export async function listEvents(db: Queryable, req: AuditPageRequest): Promise<AuditPage> {
  const where = whereOf(req.filter, { beforeId: req.after });
  const offset = req.after === undefined ? (req.page - 1) * req.pageSize : 0;
  const pageSql = `SELECT ${eventColumns} FROM audit_events ${where.sql} ORDER BY id DESC LIMIT ${req.pageSize + 1} OFFSET ${offset}`;
  const [{ rows }, total] = await Promise.all([db.query<AuditRow>(pageSql, where.values), countMatching(db, req.filter)]);
  const more = rows.length > req.pageSize;
  const events = rows.slice(0, req.pageSize).map(eventOf);
  const page: AuditPage = { events, total, page: req.after === undefined ? req.page : 1, pageSize: req.pageSize };
  if (more) page.nextCursor = events[events.length - 1].id;
  return page;
}

export async function getEvent(db: Queryable, id: string): Promise<AuditEvent | undefined> {
  const { rows } = await db.query<AuditRow>(`SELECT ${eventColumns} FROM audit_events WHERE id = $1`, [id]);
  return rows[0] ? eventOf(rows[0]) : undefined;
}
