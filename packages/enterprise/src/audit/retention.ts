import type { Pool } from 'pg';
import { whereOf } from './filter-sql.js';

const DAY_MS = 86_400_000;

/**
 * Deletes whole UTC days older than `retentionDays`, from the start of the chain. The chain stays
 * verifiable: the anchor moves to the last removed row, whose hash the first kept row points back to.
 * Rows are removed by chain position (a prefix), so a replica whose clock was a little off cannot leave a
 * hole. One replica at a time (a try-lock); the anchor update comes last so appends wait only for the commit.
 */
export async function applyRetention(pool: Pool, retentionDays: number, now = new Date()): Promise<number> {
  const todayStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const cutoff = new Date(todayStart - retentionDays * DAY_MS);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const { rows: lock } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock(hashtext('portico-audit-retention')) AS ok");
    if (!lock[0].ok) {
      await client.query('ROLLBACK');
      return 0;
    }
    const old = whereOf({ to: new Date(cutoff.getTime() - 1) });
    const { rows } = await client.query<{ seq: string | null }>(`SELECT max(seq) AS seq FROM audit_events ${old.sql}`, old.values);
    const lastSeq = rows[0].seq;
    if (lastSeq === null) {
      await client.query('ROLLBACK');
      return 0;
    }
    const { rows: last } = await client.query<{ hash: string }>('SELECT hash FROM audit_events WHERE seq = $1', [lastSeq]);
    const removed = await client.query('DELETE FROM audit_events WHERE seq <= $1', [lastSeq]);
    await client.query('UPDATE audit_chain SET anchor_seq = $1, anchor_hash = $2 WHERE id = 1', [lastSeq, last[0].hash]);
    await client.query('COMMIT');
    return removed.rowCount ?? 0;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
