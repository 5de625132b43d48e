import type { Readable } from 'node:stream';
import type { Pool } from 'pg';
import QueryStream from 'pg-query-stream';

/** The longest timer Node keeps (about 24.8 days). */
const NO_READ_TIMEOUT = 2 ** 31 - 1;

/**
 * A cursor streams for as long as its reader takes (an export of millions of rows), so it is exempt from
 * the pool's timeouts: the client's whole-query read timeout here, and PostgreSQL's `statement_timeout`
 * (which spans the whole cursor) by `SET LOCAL statement_timeout = 0` in the cursor's transaction.
 */
export const streaming = <T extends object>(cursor: T): T => Object.assign(cursor, { query_timeout: NO_READ_TIMEOUT });

export const UNBOUNDED_STATEMENT = 'SET LOCAL statement_timeout = 0';

/**
 * The rows of one SELECT as an object stream of any length: a server-side cursor reads `batchSize` rows at a
 * time as the consumer asks for them (back-pressure all the way to PostgreSQL), so memory stays flat. The
 * query runs in a read-only transaction exempt from the statement timeout. `finish(rows)` builds the stream
 * handed out (e.g. rows piped into a CSV writer); the connection goes back to the pool when the rows end,
 * and is dropped when they fail or the consumer goes away mid-way.
 */
// 500 rows a batch: few enough that a batch's rows die in V8's young generation, so a long export keeps the
// server's memory flat; much larger batches outlive it and grow the RSS with the export.
export async function streamQuery(pool: Pool, sql: string, values: unknown[], finish: (rows: Readable) => Readable, batchSize = 500): Promise<Readable> {
  const client = await pool.connect();
  // Between statements a checked-out client has no query to fail: a lost connection is emitted as an event,
  // which would end the process without a listener. The stream fails instead.
  let out: Readable | undefined;
  const onLost = (error: Error) => out?.destroy(error);
  client.on('error', onLost);
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(UNBOUNDED_STATEMENT);
  } catch (error) {
    client.off('error', onLost);
    client.release(error as Error);
    throw error;
  }
  const rows: Readable = client.query(streaming(new QueryStream(sql, values, { batchSize })));
  let released = false;
  let ended = false;
  const release = (error?: Error) => {
    if (released) return;
    released = true;
    client.off('error', onLost);
    client.release(error);
  };
  const stream = finish(rows);
  out = stream;
  rows.once('error', (error) => {
    release(error);
    stream.destroy(error);
  });
  rows.once('end', () => {
    ended = true;
    client.query('COMMIT').then(() => release(), (error: Error) => release(error));
  });
  stream.once('close', () => {
    if (!ended) {
      rows.destroy();
      // A cursor abandoned mid-way leaves the connection busy: drop it rather than reuse it.
      release(new Error('export abandoned'));
    }
  });
  return stream;
}
