// The floor under "what audit adds": what PostgreSQL alone takes, on this machine, to make one row per request
// durable at a given rate. Any audit trail that answers only once its record is committed pays at least this.
// Requests are offered open loop, as the builds are (pacedCalls); rows are group-committed by the audit trail's own
// line (createStatementLine): one statement on its way at a time, carrying every row queued meanwhile. The table is
// narrow (a bigserial key and a ~0.5 KB text), so this is a lower bound: an audit event fills six indexes.
import { createStatementLine } from '../../packages/enterprise/dist/index.js';
import { pacedCalls } from '../lib/load.mjs';
import { narrowTable } from './narrow-table.mjs';

export async function commitFloor({ databaseUrl, rate, durationMs, warmupMs = 1000 }) {
  const { insert, drop } = await narrowTable(databaseUrl, 'bench_commit_floor');
  // Every call adds a row, so a statement always carries at least one; `true` is the answer pacedCalls expects.
  const line = createStatementLine((rows) => insert(rows.length));
  try {
    return await pacedCalls({ rate, durationMs, warmupMs, call: () => line.add(true) });
  } finally {
    await drop();
  }
}
