// The least a fail-closed audit trail can add, as an operation hook on the OSS server: the two waits the
// Enterprise recorder has (an answer from PostgreSQL that came after the operation arrived, before it runs; its
// record committed, before the caller hears back) and nothing else. No event is built, redacted, serialised or
// chained: each record is one narrow row (a bigserial key and a ~0.5 KB text, no other index). Statements are
// shared by the trail's own line (`createStatementLine`), so exactly as the recorder shares them.
import { createStatementLine } from '../../packages/enterprise/dist/index.js';
import { narrowTable } from './narrow-table.mjs';

export async function floorHook({ databaseUrl }) {
  const { client, insert, drop } = await narrowTable(databaseUrl, 'bench_floor');
  const line = createStatementLine((rows) => (rows.length > 0 ? insert(rows.length) : client.query('SELECT 1')));
  const hook = async (_operation, run) => {
    await line.answered();
    let value;
    let thrown;
    let failed = false;
    try {
      value = await run();
    } catch (error) {
      thrown = error;
      failed = true;
    }
    await line.add(null);
    if (failed) throw thrown;
    return value;
  };
  return { hook, stop: drop };
}
