import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import type { Queryable } from './db.js';
import { decodeTime, monotonicFactory, ulid } from 'ulid';
import { CHAIN_VERSION, canonicalEvent, canonicalJson, digestOf } from './chain.js';
import { configColumns, configOf, readConfig, type ConfigRow } from './config.js';
import { createStatementLine } from './statement-line.js';
import type { AuditConfig, AuditDraft, AuditEvent } from './types.js';

/**
 * ULID randomness from a pooled crypto buffer: the library's default asks Web Crypto once for each of an id's 16
 * random characters, a call for every 5 bits of the 80, on every event.
 */
const POOL = 4096;
let pool = randomBytes(POOL);
let at = 0;
const pooledRandom = (): number => {
  if (at + 4 > POOL) {
    pool = randomBytes(POOL);
    at = 0;
  }
  const n = pool.readUInt32BE(at);
  at += 4;
  return n / 0x1_0000_0000;
};
const nextId = monotonicFactory(pooledRandom);

/**
 * Gives the draft its ULID (time part = its timestamp, to the millisecond). Ids of this process only grow,
 * even within a millisecond or when the clock steps back (the timestamp then follows the id, so time
 * filters and id ranges agree exactly); `at` makes an event of another time (back-fills, tests).
 */
export function newEvent(draft: AuditDraft, at?: number): AuditEvent {
  const id = at === undefined ? nextId() : ulid(at);
  return { id, timestamp: timestampOf(id), ...draft };
}

/** The id's time part as ISO text, decoded once per millisecond: under load many events share one. */
let lastTimePart = '';
let lastTimestamp = '';
function timestampOf(id: string): string {
  const timePart = id.slice(0, 10);
  if (timePart !== lastTimePart) {
    lastTimestamp = new Date(decodeTime(id)).toISOString();
    lastTimePart = timePart;
  }
  return lastTimestamp;
}

/**
 * One statement appends a batch: it locks the chain head (`FOR UPDATE` waits for any other replica's
 * append and then reads the head it left), chains the rows onto it in PostgreSQL (`hash` = sha256 of the
 * previous hash, a newline and the event's canonical JSON: the formula of `chainHash`, which `verify`
 * recomputes), inserts them and moves the head. A statement is atomic, so on any failure nothing of the
 * batch is stored; and a batch costs one round trip however many events it carries.
 *
 * Rows are of chain version 2: the canonical text an event is hashed over holds the digest of its details, not the
 * details (`canonicalEvent`), so they can be erased later without breaking the chain. The details travel beside it,
 * as their own canonical text (the one the digest was computed over), in a second parameter.
 *
 * Each parameter is the events' texts joined by newlines, one `text` split into an array once (`texts`):
 * canonical JSON never holds a raw newline (JSON escapes it inside strings), and a `text[]` parameter would cost
 * the driver an escaping pass over every quote of every event. Each text is hashed exactly as sent and parsed
 * once, into `jsonb`, for its columns. `MATERIALIZED` keeps that one parse: inlined, PostgreSQL would parse an
 * event again for each column it reads, and so it did when the columns were read with `json ->>` (which parses
 * the whole text on every call): half of PostgreSQL's CPU for an append. The chain takes each text by subscript
 * rather than by joining the batch, which the recursion would scan once per event.
 */
export const appendSql = `
WITH RECURSIVE
texts AS MATERIALIZED (SELECT string_to_array($1::text, E'\\n') AS a, string_to_array($2::text, E'\\n') AS d),
batch AS MATERIALIZED (
  SELECT b.n::int AS n, b.canon::jsonb AS j, b.details::jsonb AS details FROM texts, unnest(texts.a, texts.d) WITH ORDINALITY AS b(canon, details, n)
),
head AS (SELECT seq, hash FROM audit_chain WHERE id = 1 FOR UPDATE),
chain AS (
  SELECT 0 AS n, head.seq, head.hash, NULL::text AS prev FROM head
  UNION ALL
  SELECT c.n + 1, c.seq + 1, encode(sha256(convert_to(c.hash || E'\\n' || t.a[c.n + 1], 'UTF8')), 'hex'), c.hash
    FROM chain c, texts t WHERE c.n < cardinality(t.a)
),
ins AS (
  INSERT INTO audit_events (seq, id, ts, user_id, user_email, source_ip, user_agent, action, resource, name, project, namespace,
                            request_id, result, http_status, details, prev_hash, hash, chain_version, details_digest)
  SELECT c.seq, b.j->>0, (b.j->>1)::timestamptz, b.j->>2, b.j->>3, b.j->>4, b.j->>5, b.j->>6, b.j->>7, b.j->>8, b.j->>9, b.j->>10,
         b.j->>11, b.j->>12, (b.j->>13)::int, b.details, c.prev, c.hash, ${CHAIN_VERSION}, b.j->>14
    FROM chain c JOIN batch b ON b.n = c.n
  RETURNING seq, prev_hash, hash
)
UPDATE audit_chain SET seq = last.seq, hash = last.hash, prev_hash = last.prev_hash
  FROM (SELECT seq, prev_hash, hash FROM ins ORDER BY seq DESC LIMIT 1) AS last
 WHERE audit_chain.id = 1`;

/**
 * The same append, answering the configuration as the same statement reads it (`moved` runs whether or not it
 * is read: PostgreSQL executes data-modifying WITH clauses exactly once), so the statement that stores a batch is
 * also the proof that PostgreSQL answered, and the fresh configuration, for the operations that wait on it.
 */
const appendReadingConfigSql = appendSql
  .replace('UPDATE audit_chain SET', ', moved AS (\nUPDATE audit_chain SET')
  .replace(/WHERE audit_chain\.id = 1$/, `WHERE audit_chain.id = 1 RETURNING 1
)
SELECT ${configColumns} FROM audit_config WHERE id = 1`);

/**
 * A batch travels as two texts, one line per event (see `appendSql`): the canonical texts the chain hashes, and the
 * canonical texts of the details, each details text serialised once and hashed for its digest.
 */
export function appendRows(events: readonly AuditEvent[]): [string, string] {
  let chained = '';
  let details = '';
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    const text = canonicalJson(event.details);
    const separator = i === 0 ? '' : '\n';
    chained += separator + canonicalEvent(event, digestOf(text));
    details += separator + text;
  }
  return [chained, details];
}

export async function appendBatch(pool: Queryable, events: readonly AuditEvent[]): Promise<void> {
  await pool.query({ name: 'portico-audit-append', text: appendSql, values: appendRows(events) });
}

/** Appends a batch and answers the configuration read by the same statement. */
export async function appendBatchReadingConfig(pool: Queryable, events: readonly AuditEvent[]): Promise<AuditConfig> {
  const { rows } = await pool.query<ConfigRow>({ name: 'portico-audit-append-config', text: appendReadingConfigSql, values: appendRows(events) });
  return configOf(rows[0]!);
}

/** Appends one event on its own (tests, tools); the recorder settles its events through settle.ts. */
export async function appendEvent(pool: Pool, draft: AuditDraft, at?: number): Promise<AuditEvent> {
  const event = newEvent(draft, at);
  await appendBatch(pool, [event]);
  return event;
}

/**
 * A line to the trail for code that appends without intents (tools, tests; the recorder uses intents.ts and
 * settle.ts, lines built the same way), a `StatementLine`: at most one statement on its way at a time, and each
 * one both appends every event queued when it left (at most 500) and reads the configuration (a bare read when no
 * event is queued).
 *
 * - `check()` answers the configuration from a statement whose answer comes after the call: the one on its way
 *   (it has not answered yet), else a new one: proof that PostgreSQL answered after the call.
 * - `append()` resolves once the statement that carries the event has stored it, or rejects with its failure.
 *   Events wait for the statement on its way; with none on its way (or when it answers) the next statement
 *   leaves at the end of the current turn of the event loop rather than at once, so operations that finish
 *   together (one write batch of the cluster acknowledges many) travel in one statement instead of the first of
 *   them alone and the rest in the next. Waiting for the end of the turn costs no time: a turn with nothing more
 *   to append ends at once.
 *
 * Operations in flight together thus share statements in both roles (group commit: one transaction, one WAL
 * flush per batch), so a replica makes about one statement per batch of operations instead of a read and an
 * append for each: the round trip, not PostgreSQL's work, is what a statement costs the server most. One statement
 * at a time, because several on their way at once would queue on the chain head's row lock, each with fewer events.
 */
export interface AuditTrail {
  check(): Promise<AuditConfig>;
  append(draft: AuditDraft): Promise<AuditEvent>;
}

export function createAuditTrail(pool: Queryable): AuditTrail {
  const line = createStatementLine<AuditEvent, AuditConfig>((events) => (events.length > 0 ? appendBatchReadingConfig(pool, events) : readConfig(pool)));
  return {
    check: line.answered,
    append: (draft) => line.add(newEvent(draft)),
  };
}
