import type { Queryable } from '../../audit/db.js';

const DAY_MS = 86_400_000;

/**
 * Deletes resolved records resolved more than `retentionDays` ago; active ones stay however old. Every
 * replica may run it: a DELETE of rows another replica already removed removes nothing.
 */
export async function applyHistoryRetention(db: Queryable, retentionDays: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  const { rowCount } = await db.query("DELETE FROM violation_history WHERE status = 'resolved' AND resolved_at < $1", [cutoff.toISOString()]);
  return rowCount ?? 0;
}
