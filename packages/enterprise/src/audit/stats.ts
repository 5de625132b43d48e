import type { Queryable } from './db.js';
import { whereOf } from './filter-sql.js';
import { chainLengthSql } from './query.js';

export interface AuditStats {
  totalEvents: number;
  eventsToday: number;
  topUsers: { userId: string; count: number }[];
  deniedAttempts: number;
  byActionToday: Record<string, number>;
  byResultToday: Record<string, number>;
}

const startOfUtcDay = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

/**
 * Totals over the whole trail come from the chain head (no table scan); everything else is about today
 * (UTC), so the cost follows today's volume, not the size of the trail. `topUsers` and `deniedAttempts` are
 * today's too.
 */
export async function auditStats(db: Queryable, now = new Date()): Promise<AuditStats> {
  const today = whereOf({ from: startOfUtcDay(now) });
  const [head, groups, users] = await Promise.all([
    db.query<{ n: string }>(chainLengthSql),
    db.query<{ action: string; result: string; n: string }>(
      `SELECT action, result, count(*) AS n FROM audit_events ${today.sql} GROUP BY action, result`, today.values),
    db.query<{ user_id: string; n: string }>(
      `SELECT user_id, count(*) AS n FROM audit_events ${today.sql} GROUP BY user_id ORDER BY n DESC, user_id LIMIT 10`, today.values),
  ]);
  const byActionToday: Record<string, number> = {};
  const byResultToday: Record<string, number> = {};
  let eventsToday = 0;
  for (const row of groups.rows) {
    const n = Number(row.n);
    eventsToday += n;
    byActionToday[row.action] = (byActionToday[row.action] ?? 0) + n;
    byResultToday[row.result] = (byResultToday[row.result] ?? 0) + n;
  }
  return {
    totalEvents: Number(head.rows[0].n),
    eventsToday,
    topUsers: users.rows.map((row) => ({ userId: row.user_id, count: Number(row.n) })),
    deniedAttempts: byResultToday.denied ?? 0,
    byActionToday,
    byResultToday,
  };
}
