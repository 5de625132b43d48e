import type { Queryable } from './db.js';
import { clean } from './redact.js';
import { eventColumns, eventOf, type AuditRow } from './row.js';
import type { AuditEvent } from './types.js';

export interface Erasure {
  /** The user who erases. */
  by: string;
  reason: string;
}

/** What an erasure found: the erased event, or why there was nothing to erase. */
export type EraseOutcome =
  | { erased: AuditEvent }
  | { missing: true }
  | { alreadyErased: AuditEvent }
  /** Recorded before erasure existed (chain version 1): its hash covers its details. */
  | { notErasable: AuditEvent };

/**
 * Erases the details of one event: they become `{}`, and the row says when, by whom and why. Nothing else of the row
 * changes: its digest of the details and its hash stay, so `verify` still passes (the append-only trigger admits this
 * one change and no other). Once only: a second erasure of the same event finds it erased (two at once: one waits
 * for the other's row lock, then finds it erased).
 */
export async function eraseEvent(db: Queryable, id: string, erasure: Erasure): Promise<EraseOutcome> {
  const { rows } = await db.query<AuditRow>(
    `UPDATE audit_events SET details = '{}'::jsonb, erased_at = now(), erased_by = $2, erased_reason = $3
      WHERE id = $1 AND chain_version = 2 AND erased_at IS NULL
      RETURNING ${eventColumns}`,
    [id, clean(erasure.by), clean(erasure.reason)],
  );
  if (rows[0]) return { erased: eventOf(rows[0]) };
  const { rows: found } = await db.query<AuditRow>(`SELECT chain_version, ${eventColumns} FROM audit_events WHERE id = $1`, [id]);
  const row = found[0];
  if (!row) return { missing: true };
  return row.erased_at !== null ? { alreadyErased: eventOf(row) } : { notErasable: eventOf(row) };
}
