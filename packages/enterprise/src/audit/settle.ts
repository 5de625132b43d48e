import type { Logger } from '@portico/core';
import { isDatabaseOutage } from '../db/outage.js';
import { appendRows, appendSql } from './append.js';
import type { Queryable } from './db.js';
import { createStatementLine } from './statement-line.js';
import type { AuditEvent } from './types.js';

/** How an operation's intent ends: it goes, and its event (absent: not recorded, or the operation never ran) comes. */
export interface Settlement {
  intentId: string;
  event?: AuditEvent;
}

const TEXTS = "texts AS MATERIALIZED (SELECT string_to_array($1::text, E'\\n') AS a, string_to_array($2::text, E'\\n') AS d),";

/**
 * The append statement of append.ts, but an event is chained only if this statement deleted its intent (`gone`):
 * one statement, so deleting the intents and appending the events commit together or not at all, and an intent that
 * is already gone (settled by an earlier try whose answer was lost, or recovered by another replica) adds nothing, so
 * an event is never recorded twice. Intents of settlements without an event (`$4`) just go.
 */
const settleSql = appendSql.replace(
  TEXTS,
  `gone AS (DELETE FROM audit_intents WHERE id = ANY($3::text[]) OR id = ANY($4::text[]) RETURNING id),
texts AS MATERIALIZED (
  SELECT coalesce(array_agg(s.canon ORDER BY s.n), '{}') AS a, coalesce(array_agg(s.details ORDER BY s.n), '{}') AS d
    FROM unnest(string_to_array($1::text, E'\\n'), string_to_array($2::text, E'\\n'), $3::text[]) WITH ORDINALITY AS s(canon, details, intent, n)
   WHERE s.intent IN (SELECT id FROM gone)
),`,
);
if (settleSql === appendSql) throw new Error('audit settle statement: the append statement it is built from changed');

export async function settleBatch(db: Queryable, settlements: readonly Settlement[]): Promise<void> {
  const recorded = settlements.filter((s) => s.event !== undefined);
  const [chained, details] = appendRows(recorded.map((s) => s.event!));
  const dropped = settlements.filter((s) => s.event === undefined).map((s) => s.intentId);
  await db.query({ name: 'portico-audit-settle', text: settleSql, values: [chained, details, recorded.map((s) => s.intentId), dropped] });
}

export interface SettlerOptions {
  /** First wait before a queued settlement is tried again; doubles up to `retryMaxMs`. */
  retryMinMs?: number;
  retryMaxMs?: number;
  /** Settlements kept in memory at most; beyond, the oldest go (those without an event first) and their intents wait for recovery. */
  maxQueued?: number;
}

export interface Settler {
  /** Resolves once the settlement is stored (shared statements, as the trail's), rejects with the failure. */
  settle(settlement: Settlement): Promise<void>;
  /** Keeps a settlement that could not be stored and tries it again in the background until PostgreSQL takes it. */
  later(settlement: Settlement, error: unknown): void;
  /** PostgreSQL answered: what waits is tried now rather than after its backoff. */
  nudge(): void;
}

/** What a log line says of a failure: never the statement's values (they hold the events). */
const failureOf = (error: unknown) => ({ code: (error as { code?: unknown })?.code, message: error instanceof Error ? error.message : String(error) });

/**
 * The recorder's settlements. Normally each one travels on a shared statement and its operation's caller waits for
 * it. One that fails (PostgreSQL went away after the intent was stored) waits in memory: the caller is told the
 * operation's true outcome, since its intent is durable, and the settlement is tried again with backoff, as soon as
 * PostgreSQL answers another statement (`nudge`), until it is stored. `done(intentId)` says an intent is no longer
 * this process's to settle: stored, or given up when the queue is full (recovery records it then).
 */
export function createSettler(deps: { db: Queryable; logger: Logger; done: (intentId: string) => void; stopped?: () => boolean } & SettlerOptions): Settler {
  const retryMinMs = deps.retryMinMs ?? 250;
  const retryMaxMs = deps.retryMaxMs ?? 10_000;
  const maxQueued = deps.maxQueued ?? 10_000;
  const line = createStatementLine<Settlement, void>((settlements) => settleBatch(deps.db, settlements));
  let waiting: Settlement[] = [];
  let delay = retryMinMs;
  let timer: NodeJS.Timeout | undefined;
  let trying = false;

  const giveUpOldest = () => {
    const index = waiting.findIndex((s) => s.event === undefined);
    const [dropped] = waiting.splice(index >= 0 ? index : 0, 1);
    deps.logger.error(
      { intent: dropped!.intentId, queued: waiting.length, recorded: dropped!.event !== undefined },
      'audit settlements queue is full: this intent is left to recovery, which records it as OUTCOME_UNKNOWN',
    );
    deps.done(dropped!.intentId);
  };

  const schedule = (ms: number) => {
    if (timer || trying || waiting.length === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void tryAgain();
    }, ms);
    timer.unref();
  };

  /**
   * A batch PostgreSQL refuses for a reason other than an outage (one settlement it cannot take) would block the
   * others for good: each is then tried alone, and one refused alone is given up (its intent waits for recovery).
   * Answers the settlements handled, and the outage that stopped it, if one did.
   */
  const oneByOne = async (batch: readonly Settlement[]): Promise<{ handled: Settlement[]; outage?: unknown }> => {
    const handled: Settlement[] = [];
    for (const settlement of batch) {
      try {
        await settleBatch(deps.db, [settlement]);
      } catch (error) {
        if (isDatabaseOutage(error)) return { handled, outage: error };
        deps.logger.error({ error: failureOf(error), intent: settlement.intentId }, 'PostgreSQL refuses this audit settlement: its intent is left to recovery');
      }
      handled.push(settlement);
    }
    return { handled };
  };

  const tryAgain = async () => {
    if (trying || waiting.length === 0) return;
    if (deps.stopped?.()) {
      waiting = [];
      return;
    }
    trying = true;
    const batch = waiting.slice(0, 500);
    let handled: readonly Settlement[] = batch;
    let outage: unknown;
    try {
      await settleBatch(deps.db, batch);
    } catch (error) {
      ({ handled, outage } = isDatabaseOutage(error) ? { handled: [], outage: error } : await oneByOne(batch));
    }
    const gone = new Set(handled);
    waiting = waiting.filter((s) => !gone.has(s));
    for (const s of handled) deps.done(s.intentId);
    trying = false;
    if (outage === undefined) {
      delay = retryMinMs;
      if (waiting.length === 0) deps.logger.info({ settled: handled.length }, 'audit settlements queued during the outage are stored');
      schedule(0);
    } else {
      deps.logger.warn({ error: failureOf(outage), queued: waiting.length, retryInMs: delay }, 'audit settlements still cannot be stored; retrying');
      schedule(delay);
      delay = Math.min(delay * 2, retryMaxMs);
    }
  };

  return {
    settle: (settlement) => line.add(settlement).then(() => deps.done(settlement.intentId)),
    later(settlement, error) {
      if (waiting.length === 0) {
        deps.logger.warn({ error: failureOf(error), intent: settlement.intentId }, 'audit settlement queued until PostgreSQL answers');
      }
      waiting.push(settlement);
      while (waiting.length > maxQueued) giveUpOldest();
      schedule(delay);
    },
    nudge() {
      if (waiting.length === 0 || trying) return;
      clearTimeout(timer);
      timer = undefined;
      void tryAgain();
    },
  };
}
