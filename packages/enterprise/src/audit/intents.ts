import { randomUUID } from 'node:crypto';
import type { Queryable } from './db.js';
import { configColumns, configOf, readConfig, type ConfigRow } from './config.js';
import { createStatementLine } from './statement-line.js';
import type { AuditConfig, AuditDraft } from './types.js';

/** What an operation leaves in PostgreSQL before it runs: the event to record if its ending never is (draft.ts). */
export interface Intent {
  id: string;
  draft: AuditDraft;
}

export const newIntent = (draft: AuditDraft): Intent => ({ id: randomUUID(), draft });

/**
 * Stores a batch of intents and answers the configuration, in one statement (PostgreSQL executes a data-modifying
 * WITH clause whether or not it is read): its answer both proves the intents durable and says whether the operations
 * are recorded. Drafts travel as one text, one JSON a line (JSON never holds a raw newline).
 */
const writeIntentsSql = `
WITH written AS (
  INSERT INTO audit_intents (id, boot_id, draft)
  SELECT i.id, $1, i.draft::jsonb FROM unnest($2::text[], string_to_array($3::text, E'\\n')) AS i(id, draft)
  RETURNING 1
)
SELECT ${configColumns} FROM audit_config WHERE id = 1`;

export async function writeIntents(db: Queryable, bootId: string, intents: readonly Intent[]): Promise<AuditConfig> {
  if (intents.length === 0) return readConfig(db);
  const drafts = intents.map((i) => JSON.stringify(i.draft)).join('\n');
  const { rows } = await db.query<ConfigRow>({ name: 'portico-audit-intents', text: writeIntentsSql, values: [bootId, intents.map((i) => i.id), drafts] });
  return configOf(rows[0]!);
}

/**
 * The recorder's line for intents (a `StatementLine`, as the trail's appends): intents of operations that arrive
 * together share one statement and one commit, and each operation runs once the statement carrying its intent has
 * answered, with the configuration that statement read.
 */
export function createIntentLine(db: Queryable, bootId: string): { write(intent: Intent): Promise<AuditConfig> } {
  const line = createStatementLine<Intent, AuditConfig>((intents) => writeIntents(db, bootId, intents));
  return { write: (intent) => line.carry(intent) };
}
