// The floor under "what audit adds": what PostgreSQL alone takes, on this machine, to make one row per request
// durable at a given rate. Any audit trail that answers only once its record is committed pays at least this.
// Requests are offered open loop, as the builds are (pacedCalls); rows are group-committed the way the audit trail
// commits its events: one statement on its way at a time, carrying every row queued meanwhile. The table is
// narrow (a bigserial key and a ~0.5 KB text), so this is a lower bound: an audit event fills six indexes.
import { pacedCalls } from '../lib/load.mjs';
import { narrowTable } from './narrow-table.mjs';

export async function commitFloor({ databaseUrl, rate, durationMs, warmupMs = 1000 }) {
  const { insert, drop } = await narrowTable(databaseUrl, 'bench_commit_floor');
  let queue = [];
  let onItsWay = false;
  const send = async () => {
    onItsWay = true;
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await insert(batch.length);
        for (const p of batch) p.resolve(true);
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    onItsWay = false;
  };
  try {
    return await pacedCalls({
      rate,
      durationMs,
      warmupMs,
      call: () =>
        new Promise((resolve, reject) => {
          queue.push({ resolve, reject });
          if (!onItsWay) void send();
        }),
    });
  } finally {
    await drop();
  }
}
