import type { Pool } from 'pg';
import QueryStream from 'pg-query-stream';
import { canonicalEvent, canonicalEventV1, chainHash, detailsDigest } from './chain.js';
import { UNBOUNDED_STATEMENT, streaming } from './db.js';
import { eventOf, type AuditRow } from './row.js';

export interface VerifyResult {
  ok: boolean;
  checked: number;
  firstBrokenId?: string;
}

interface HeadRow {
  seq: string;
  hash: string;
  anchor_seq: string;
  anchor_hash: string;
}

/** The hash a row has when it follows `prevHash`, by the rule of its chain version (undefined: no such version). */
function hashAfter(prevHash: string, row: AuditRow): string | undefined {
  if (row.chain_version === 2) return row.details_digest === null ? undefined : chainHash(prevHash, canonicalEvent(eventOf(row), row.details_digest));
  if (row.chain_version === 1) return chainHash(prevHash, canonicalEventV1(eventOf(row)));
  return undefined;
}

const isEmptyObject = (value: unknown) => value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;

/**
 * Whether a row's details are the ones it was hashed with: a version-2 row's details match its digest, or they were
 * erased (then they are `{}` and the erasure says who and why); a version-1 row is hashed over its details, and
 * cannot be erased.
 */
function detailsIntact(row: AuditRow): boolean {
  if (row.chain_version === 1) return row.erased_at === null;
  if (row.erased_at === null) return row.details_digest !== null && detailsDigest(row.details) === row.details_digest;
  return isEmptyObject(row.details) && row.erased_by !== null && row.erased_reason !== null;
}

/** Whether a row hashes to what it stores after the hash it says it follows: nothing of it changed. */
const selfConsistent = (row: AuditRow) => detailsIntact(row) && row.hash === hashAfter(row.prev_hash, row);

/**
 * Walks the chain from its anchor in `seq` order and recomputes every hash. The first row that does not
 * hash to what it stores, does not point at its predecessor's hash, or follows a gap is the broken one; rows
 * of chain version 2 are hashed over the digest of their details, which must match them unless they were erased
 * (erase.ts). A chain whose last row is not the head (rows removed from the end, or the last row rewritten) is
 * broken at its last row. Reads one snapshot, streamed, so appends go on meanwhile and memory stays flat however
 * long the trail is.
 *
 * A link that does not hold between two rows that are each intact in themselves means one of them was rewritten
 * whole (its content and its own hash made to agree): the predecessor, when the row after the break is still
 * pointed at by its own successor (or is the head); the row itself, when that next link is broken too.
 */
export async function verifyChain(pool: Pool): Promise<VerifyResult> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await client.query(UNBOUNDED_STATEMENT);
    const { rows } = await client.query<HeadRow>('SELECT seq, hash, anchor_seq, anchor_hash FROM audit_chain WHERE id = 1');
    const head = rows[0];
    let prevHash = head.anchor_hash;
    let expectedSeq = BigInt(head.anchor_seq) + 1n;
    let checked = 0;
    let lastId: string | undefined;
    const stream = client.query(streaming(new QueryStream('SELECT * FROM audit_events ORDER BY seq', [], { batchSize: 1000 })));
    const rowsInOrder = (stream as AsyncIterable<AuditRow>)[Symbol.asyncIterator]();
    for (let next = await rowsInOrder.next(); !next.done; next = await rowsInOrder.next()) {
      const row = next.value;
      checked += 1;
      const inPlace = BigInt(row.seq) === expectedSeq;
      if (inPlace && row.prev_hash === prevHash && detailsIntact(row) && row.hash === hashAfter(prevHash, row)) {
        prevHash = row.hash;
        expectedSeq += 1n;
        lastId = row.id;
        continue;
      }
      let broken = row.id;
      if (inPlace && lastId !== undefined && row.prev_hash !== prevHash && selfConsistent(row)) {
        const after = await rowsInOrder.next();
        if (after.done ? head.hash === row.hash : after.value.prev_hash === row.hash) broken = lastId;
      }
      stream.destroy();
      return { ok: false, checked, firstBrokenId: broken };
    }
    if (prevHash !== head.hash || expectedSeq - 1n !== BigInt(head.seq)) {
      return lastId === undefined ? { ok: false, checked } : { ok: false, checked, firstBrokenId: lastId };
    }
    return { ok: true, checked };
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}
