import { randomUUID } from 'node:crypto';
import { unavailable, type Logger, type Operation, type OperationHook } from '@portico/core';
import type { Pool } from 'pg';
import { newEvent } from './append.js';
import { isRecorded } from './config.js';
import { draftOf, outcomeOf, redactedInput, successOf, unknownOutcomeDraft, type Outcome } from './draft.js';
import { createIntentLine, newIntent } from './intents.js';
import { startRecovery } from './recovery.js';
import { createSettler, type Settlement, type SettlerOptions } from './settle.js';
import type { AuditConfig } from './types.js';

const trailDown = (cause: unknown) => unavailable('audit trail (PostgreSQL)', 5, cause);

export interface AuditRecorderOptions extends SettlerOptions {
  pool: Pool;
  logger: Logger;
  /** This process among the replicas (tests name one; a fresh one per process otherwise). */
  bootId?: string;
  /** How old another process's intent must be before recovery takes it: longer than any operation runs. */
  recoverAfterMs?: number;
  /** How often recovery looks for intents nobody settles. */
  recoverEveryMs?: number;
}

/**
 * The one place operations are recorded: a hook of core's operation seam, so it wraps every audited operation
 * whoever calls it (the HTTP server or an embedding program). Fail closed, strictly (contract §12.2):
 *
 * 1. Before the operation runs, its intent (the event recovery records if nothing else does, redacted) is stored
 *    durably; the statement that stores it also reads the configuration. If it fails, the caller gets 503 and the
 *    operation does not run: an answer of 503 never comes with a change.
 * 2. The operation runs.
 * 3. Its settlement deletes the intent and appends the event with the real outcome, in one statement, before the
 *    caller hears back. If that fails (PostgreSQL went away meanwhile) the caller still hears the true outcome (the
 *    change is covered by its durable intent) and the settlement is retried in the background until it is stored.
 * 4. An intent nobody settles (its process died) is recorded by recovery as an `error` with `OUTCOME_UNKNOWN`.
 *
 * So every change has its record, and a `success` is recorded only by the process that told its caller so.
 */
export function createAuditRecorder(deps: AuditRecorderOptions): OperationHook {
  const bootId = deps.bootId ?? randomUUID();
  // Intents this process settles itself, which recovery leaves alone.
  const live = new Set<string>();
  const intents = createIntentLine(deps.pool, bootId);
  const settler = createSettler({ ...deps, db: deps.pool, done: (id) => live.delete(id), stopped: () => deps.pool.ended });
  startRecovery({ pool: deps.pool, logger: deps.logger, bootId, graceMs: deps.recoverAfterMs ?? 300_000, everyMs: deps.recoverEveryMs ?? 60_000, live: () => live });

  return async <T>(facts: Operation, run: () => Promise<T>): Promise<T> => {
    const input = redactedInput(facts);
    const intent = newIntent(unknownOutcomeDraft(facts, input));
    live.add(intent.id);
    let config: AuditConfig;
    try {
      config = await intents.write(intent);
    } catch (error) {
      // The statement may have committed before its answer was lost: the intent goes too (the operation never ran).
      settler.later({ intentId: intent.id }, error);
      throw trailDown(error);
    }
    settler.nudge();
    let outcome: Outcome;
    let value: T | undefined;
    let thrown: unknown;
    try {
      value = await run();
      outcome = successOf(facts);
    } catch (error) {
      thrown = error;
      outcome = outcomeOf(error);
    }
    const draft = draftOf(facts, outcome, input);
    // The configuration in force when the operation started decides, so disabling the trail is itself recorded.
    const settlement: Settlement = isRecorded(config, draft.action, draft.resource) ? { intentId: intent.id, event: newEvent(draft) } : { intentId: intent.id };
    try {
      await settler.settle(settlement);
    } catch (error) {
      settler.later(settlement, error);
    }
    if (outcome.result !== 'success') throw thrown;
    return value as T;
  };
}
