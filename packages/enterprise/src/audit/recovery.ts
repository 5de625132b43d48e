import type { Logger } from '@portico/core';
import type { Pool } from 'pg';
import { appendBatch, newEvent } from './append.js';
import { isRecorded, readConfig } from './config.js';
import type { AuditDraft, AuditEvent } from './types.js';

export interface RecoveryScope {
  /** This process's boot id. */
  bootId: string;
  /** Only intents at least this old: an operation of another replica may still be running. */
  graceMs: number;
  /** Intents of this process it still settles itself (operations running, settlements queued). */
  live: () => Iterable<string>;
}

const BATCH = 500;

/**
 * Picks intents nobody is settling: older than the grace, and of another process or of this one but no longer its own
 * to settle. `SKIP LOCKED` and `DELETE … RETURNING`: two replicas recovering at once, or a late settlement of the
 * intent's own process, never take one intent twice (a settlement that finds its intent gone adds nothing).
 */
const takeSql = `
DELETE FROM audit_intents WHERE id IN (
  SELECT id FROM audit_intents
   WHERE created_at < now() - make_interval(secs => $1::double precision / 1000)
     AND NOT (boot_id = $2 AND id = ANY($3::text[]))
   ORDER BY created_at LIMIT ${BATCH}
   FOR UPDATE SKIP LOCKED
)
RETURNING draft, created_at`;

/** The event of an intent whose ending was never recorded: its draft says `OUTCOME_UNKNOWN` (draft.ts), and when it began. */
function eventOf(row: { draft: AuditDraft; created_at: Date }): AuditEvent {
  const draft = row.draft;
  const error = (draft.details.error ?? {}) as Record<string, unknown>;
  return newEvent({ ...draft, details: { ...draft.details, error: { ...error, startedAt: row.created_at.toISOString() } } });
}

/**
 * Records every intent nobody is settling as an event with result `error` (never `success`: the caller's answer is
 * unknown), each batch in one transaction with the deletion of its intents, under the configuration in force now.
 * Answers how many intents it took.
 */
export async function recoverIntents(pool: Pool, scope: RecoveryScope): Promise<number> {
  let taken = 0;
  for (;;) {
    const client = await pool.connect();
    let failed: Error | undefined;
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ draft: AuditDraft; created_at: Date }>(takeSql, [scope.graceMs, scope.bootId, [...scope.live()]]);
      if (rows.length > 0) {
        const config = await readConfig(client);
        const events = rows.filter((r) => isRecorded(config, r.draft.action, r.draft.resource)).map(eventOf);
        if (events.length > 0) await appendBatch(client, events);
      }
      await client.query('COMMIT');
      taken += rows.length;
      if (rows.length < BATCH) return taken;
    } catch (error) {
      failed = error as Error;
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release(failed);
    }
  }
}

/**
 * Recovery at start and then every `everyMs`, for as long as the pool is open. A failed run (PostgreSQL down, schema
 * not migrated yet) is logged and tried again at the next one.
 */
export function startRecovery(deps: { pool: Pool; logger: Logger; everyMs: number } & RecoveryScope): void {
  const run = async () => {
    if (deps.pool.ended) return;
    try {
      const taken = await recoverIntents(deps.pool, deps);
      if (taken > 0) deps.logger.warn({ taken }, 'audit intents whose operations ended unrecorded are recorded as OUTCOME_UNKNOWN');
    } catch (error) {
      deps.logger.debug({ error: (error as Error).message }, 'audit intent recovery did not run; next attempt later');
    }
    if (deps.pool.ended) return;
    setTimeout(() => void run(), deps.everyMs).unref();
  };
  setTimeout(() => void run(), 0).unref();
}
