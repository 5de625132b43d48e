import type { Logger } from '@portico/core';
import type { Pool, PoolClient } from 'pg';
import type { CurrentViolation, ViolationChange } from './change.js';
import { isDatabaseOutage } from '../../db/outage.js';
import { openViolations, reconcileViolations, resolveViolations } from './write.js';

/** Held for the length of a write transaction by whichever replica writes history. */
const HISTORY_LOCK = "SELECT pg_advisory_xact_lock(hashtext('portico-violation-history'))";

export interface HistoryRecorderDeps {
  pool: Pool;
  logger: Logger;
  /** The violations in force now, from the Gatekeeper index: what a reconcile compares the table with. */
  current(): readonly CurrentViolation[];
  /** Wait before trying again while PostgreSQL does not answer. */
  retryMs?: number;
  /** Changes kept while PostgreSQL is down; past this the backlog is dropped and a reconcile replaces it. */
  maxBacklog?: number;
  now?: () => Date;
}

export interface HistoryRecorder {
  /** Queues one change; never throws. Changes are written in the order they were recorded. */
  record(change: ViolationChange): void;
  /** Compares the table with `current()` (on start); also runs by itself after a backlog was dropped. */
  reconcile(): Promise<void>;
  /** Resolves when everything recorded so far is written (tests, shutdown). */
  flushed(): Promise<void>;
  stop(): void;
}

/**
 * Splits changes, in order, into runs in which no key repeats: inside a run the order of statements does not
 * matter, so each run is one INSERT of its adds and one UPDATE of its deletes.
 */
export function runsOf(changes: readonly ViolationChange[]): ViolationChange[][] {
  const runs: ViolationChange[][] = [];
  let run: ViolationChange[] = [];
  let keys = new Set<string>();
  for (const change of changes) {
    if (keys.has(change.key)) {
      runs.push(run);
      run = [];
      keys = new Set();
    }
    run.push(change);
    keys.add(change.key);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * Turns the stream of violation changes into history rows. Every replica runs one and writes every change;
 * the statements (write.ts) let PostgreSQL pick one writer per change, so nothing is recorded twice. Writes
 * go out one batch at a time (what arrived while the last batch was written); while PostgreSQL is down the
 * batch waits and is tried again, and a backlog grown past `maxBacklog` is replaced by a reconcile.
 */
export function createHistoryRecorder(deps: HistoryRecorderDeps): HistoryRecorder {
  const retryMs = deps.retryMs ?? 2_000;
  const maxBacklog = deps.maxBacklog ?? 100_000;
  const now = deps.now ?? (() => new Date());
  let queue: ViolationChange[] = [];
  let needsReconcile = false;
  let stopped = false;
  let running: Promise<void> | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  /** A failed write waits for its retry timer; changes recorded meanwhile join the queue without a kick. */
  let waiting = false;

  /**
   * One transaction, holding the history's lock: replicas write their batches one after the other, so two
   * copies of a change never interleave (no deadlock between their row locks, and each statement sees what
   * the other replica committed before it, which the checks against late copies in write.ts rely on).
   */
  const exclusively = async (work: (db: PoolClient) => Promise<void>) => {
    const client = await deps.pool.connect();
    let failed: Error | undefined;
    // A connection lost between statements is emitted, not thrown: note it so the client is dropped.
    const onLost = (error: Error) => (failed = error);
    client.on('error', onLost);
    try {
      await client.query('BEGIN');
      await client.query(HISTORY_LOCK);
      await work(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch((broken: Error) => (failed = broken));
      throw error;
    } finally {
      // A connection that could not even roll back is dropped, not handed to the next caller.
      client.off('error', onLost);
      client.release(failed);
    }
  };

  const writeBatch = (batch: readonly ViolationChange[]) =>
    exclusively(async (db) => {
      for (const run of runsOf(batch)) {
        await openViolations(db, run.filter((c) => c.action === 'add'));
        await resolveViolations(db, run.filter((c) => c.action === 'delete'));
      }
    });

  const drain = async () => {
    while (!stopped && (needsReconcile || queue.length > 0)) {
      if (needsReconcile) {
        // The index already reflects the dropped changes: comparing with it replaces them.
        queue = [];
        const current = deps.current();
        let result = { opened: 0, resolved: 0 };
        await exclusively(async (db) => {
          result = await reconcileViolations(db, current, now());
        });
        needsReconcile = false;
        if (result.opened + result.resolved > 0) deps.logger.info(result, 'violation history reconciled with the violations in force');
        continue;
      }
      const batch = queue;
      queue = [];
      try {
        await writeBatch(batch);
      } catch (error) {
        if (isDatabaseOutage(error)) queue = batch.concat(queue);
        else {
          // PostgreSQL refused the batch itself: retrying it would block every later change behind it. The
          // reconcile that replaces it compares the table with the index instead.
          deps.logger.error({ err: error, changes: batch.length }, 'violation history batch refused; reconciling instead');
          needsReconcile = true;
        }
        throw error;
      }
    }
  };

  const kick = (): Promise<void> => {
    if (running || stopped) return running ?? Promise.resolve();
    waiting = false;
    running = drain()
      .catch((error: unknown) => {
        deps.logger.warn({ err: error, pending: queue.length }, `violation history not written; trying again in ${retryMs} ms`);
        waiting = true;
        clearTimeout(retryTimer);
        retryTimer = setTimeout(() => void kick(), retryMs);
        retryTimer.unref();
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  return {
    record(change) {
      if (stopped) return;
      queue.push(change);
      if (queue.length > maxBacklog) {
        queue = [];
        needsReconcile = true;
      }
      if (!waiting) void kick();
    },
    reconcile() {
      needsReconcile = true;
      return kick();
    },
    async flushed() {
      for (;;) {
        if (running) await running;
        else if (stopped || (queue.length === 0 && !needsReconcile)) return;
        else if (waiting) await new Promise((resolve) => setTimeout(resolve, 50));
        else await kick();
      }
    },
    stop() {
      stopped = true;
      clearTimeout(retryTimer);
    },
  };
}
