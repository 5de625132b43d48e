// The least a fail-closed audit trail can add, as an operation hook on the OSS server: the two waits the
// Enterprise recorder has (an answer from PostgreSQL that came after the operation arrived, before it runs; its
// record committed, before the caller hears back) and nothing else. No event is built, redacted, serialised or
// chained: each record is one narrow row (a bigserial key and a ~0.5 KB text, no other index). Statements are
// shared as the recorder shares them: one on its way at a time, carrying every row queued meanwhile and
// answering every check that waits on it; the next leaves at the end of the event loop's turn.
import { narrowTable } from './narrow-table.mjs';

export async function floorHook({ databaseUrl }) {
  const { client, insert, drop } = await narrowTable(databaseUrl, 'bench_floor');
  let queue = [];
  let onItsWay;
  let leavingSoon = false;

  const send = () => {
    const batch = queue;
    queue = [];
    const statement = batch.length > 0 ? insert(batch.length) : client.query('SELECT 1');
    const mine = statement.then(
      () => {
        onItsWay = undefined;
        for (const p of batch) p.resolve();
        if (queue.length > 0) sendSoon();
      },
      (error) => {
        onItsWay = undefined;
        for (const p of batch) p.reject(error);
        if (queue.length > 0) sendSoon();
        throw error;
      },
    );
    onItsWay = mine;
    return mine;
  };
  const sendSoon = () => {
    if (onItsWay || leavingSoon) return;
    leavingSoon = true;
    setImmediate(() => {
      leavingSoon = false;
      if (!onItsWay && queue.length > 0) send().catch(() => undefined);
    });
  };
  const append = () =>
    new Promise((resolve, reject) => {
      queue.push({ resolve, reject });
      sendSoon();
    });

  const hook = async (_operation, run) => {
    await (onItsWay ?? send());
    let value;
    let thrown;
    let failed = false;
    try {
      value = await run();
    } catch (error) {
      thrown = error;
      failed = true;
    }
    await append();
    if (failed) throw thrown;
    return value;
  };
  return { hook, stop: drop };
}
