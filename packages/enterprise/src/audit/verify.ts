import type { Pool } from 'pg';
import QueryStream from 'pg-query-stream';
import { canonicalEvent, chainHash } from './chain.js';
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

/**
 * Walks the chain from its anchor in `seq` order and recomputes every hash. The first row that does not
 * hash to what it stores, does not point at its predecessor's hash, or follows a gap is the broken one. A
 * chain whose last row is not the head (rows removed from the end) is broken at its last row. Reads one
 * snapshot, streamed, so appends go on meanwhile and memory stays flat however long the trail is.
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
    for await (const row of stream as AsyncIterable<AuditRow>) {
      checked += 1;
      const intact = BigInt(row.seq) === expectedSeq && row.prev_hash === prevHash && row.hash === chainHash(prevHash, canonicalEvent(eventOf(row)));
      if (!intact) {
        stream.destroy();
        return { ok: false, checked, firstBrokenId: row.id };
      }
      prevHash = row.hash;
      expectedSeq += 1n;
      lastId = row.id;
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
