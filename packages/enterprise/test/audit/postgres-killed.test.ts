import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../src/db/pool.js';
import { verifyChain } from '../../src/audit/verify.js';
import { startOwnPostgres, type OwnPostgres } from './own-postgres.js';
import { startAuditStack, type AuditStack } from './stack.js';

const WRITERS = 16;
const ROUNDS = 5;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What a writer was told about one secret it tried to create: a status, or no answer at all. */
type Answer = number | 'no answer';

interface AuditedCreate {
  name: string;
  result: string;
  error_code: string | null;
}

/**
 * Contract §12.2, fail closed strictly: PostgreSQL is killed with SIGKILL (postmaster and backends at once) while 16
 * writers create uniquely named Secrets, then started again on the same data directory, several times over. Then
 * every Secret in the cluster has its record, no write answered 503 was applied, and every `success` matches a write
 * that was told it succeeded.
 */
describe('PostgreSQL killed (-9) mid-load and restarted: every change has its record, every 503 changed nothing', () => {
  let postgres: OwnPostgres;
  let stack: AuditStack;
  let trail: Pool;
  let token: string;

  beforeAll(async () => {
    postgres = await startOwnPostgres();
    // The server migrates its schema on the test's own PostgreSQL; the stack's schema on the shared one stays empty.
    stack = await startAuditStack({ databaseUrl: postgres.url });
    trail = createPool({ url: postgres.url, schema: stack.db.schema, connectTimeoutMs: 1_000 });
    token = await stack.login('admin', stack.adminPassword);
  }, 90_000);
  afterAll(async () => {
    await trail?.end();
    await stack?.close();
    await postgres?.destroy();
  });

  const createSecret = async (name: string): Promise<Answer> => {
    try {
      const res = await fetch(`${stack.url}/api/v1/projects/default/secrets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, namespace: 'dev', data: { token: `value-of-${name}` } }),
        signal: AbortSignal.timeout(15_000),
      });
      await res.arrayBuffer();
      return res.status;
    } catch {
      return 'no answer';
    }
  };

  it('after five crashes under load the trail and the cluster agree', async () => {
    const answers = new Map<string, Answer>();
    let writing = true;
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      for (let k = 0; writing; k++) {
        const name = `crash-w${w}-${k}`;
        answers.set(name, await createSecret(name));
        // While PostgreSQL is down, answers (503) come at once: no need to hammer the server.
        if (answers.get(name) === 503) await sleep(50);
      }
    });
    const created = () => [...answers.values()].filter((a) => a === 201).length;
    for (let round = 0; round < ROUNDS; round++) {
      const before = created();
      for (const deadline = Date.now() + 10_000; created() < before + WRITERS && Date.now() < deadline; ) await sleep(50);
      await postgres.kill();
      await sleep(300);
      await postgres.start();
    }
    const before = created();
    for (const deadline = Date.now() + 10_000; created() < before + WRITERS && Date.now() < deadline; ) await sleep(50);
    writing = false;
    await Promise.all(writers);

    // Settlements that PostgreSQL missed while it was down are stored in the background once it answers again.
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await sleep(200)) {
      const { rows } = await trail.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_intents');
      if (rows[0]!.n === 0) break;
    }
    expect((await trail.query('SELECT id FROM audit_intents')).rows).toEqual([]);

    const listed = await fetch(`${stack.url}/api/v1/projects/default/secrets`, { headers: { authorization: `Bearer ${token}` } });
    const inCluster = new Set(((await listed.json()) as { items: { name: string }[] }).items.map((s) => s.name).filter((n) => n.startsWith('crash-')));
    const { rows: records } = await trail.query<AuditedCreate>(
      `SELECT name, result, details->'error'->>'errorCode' AS error_code FROM audit_events
        WHERE resource = 'secrets' AND action = 'create' AND name LIKE 'crash-%'`,
    );
    const byName = new Map<string, AuditedCreate[]>();
    for (const r of records) byName.set(r.name, [...(byName.get(r.name) ?? []), r]);
    const answered = (status: (a: Answer) => boolean) => [...answers].filter(([, a]) => status(a)).map(([name]) => name);

    // The load met the crashes: writes were refused, and writes succeeded on both sides of them.
    expect(answered((a) => a === 503).length).toBeGreaterThan(0);
    expect(created()).toBeGreaterThanOrEqual((ROUNDS + 1) * WRITERS);

    // Every change has its record: the real outcome, or OUTCOME_UNKNOWN; one record per change.
    const unrecorded = [...inCluster].filter((name) => (byName.get(name) ?? []).length !== 1);
    expect(unrecorded).toEqual([]);
    for (const name of inCluster) {
      const [record] = byName.get(name)!;
      expect(record!.result === 'success' || record!.error_code === 'OUTCOME_UNKNOWN', `${name}: ${JSON.stringify(record)}`).toBe(true);
    }
    // No write answered 503 was applied.
    expect(answered((a) => a === 503).filter((name) => inCluster.has(name))).toEqual([]);
    // Every success recorded is a write its caller was told succeeded, and every write told so is in the cluster.
    expect(records.filter((r) => r.result === 'success' && answers.get(r.name) !== 201).map((r) => r.name)).toEqual([]);
    expect(answered((a) => a === 201).filter((name) => !inCluster.has(name))).toEqual([]);
    // Every write told it succeeded has its success recorded.
    expect(answered((a) => a === 201).filter((name) => byName.get(name)?.[0]?.result !== 'success')).toEqual([]);
    expect(await verifyChain(trail)).toMatchObject({ ok: true });
  }, 120_000);
});
