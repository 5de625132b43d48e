import type { RbacVocabulary } from '@portico/api';
import type { Authorizer, Logger } from '@portico/core';
import type { Pool } from 'pg';
import type { EnterpriseModule } from '../../plugin.js';
import type { ViolationSource } from './change.js';
import { historyHandlers } from './handlers.js';
import { createHistoryRecorder } from './recorder.js';
import { applyHistoryRetention } from './retention.js';
import { createHistoryService } from './service.js';

export { createHistoryRecorder, type HistoryRecorder } from './recorder.js';
export type { ViolationSource } from './change.js';
export { historyRetentionDays, DEFAULT_HISTORY_RETENTION_DAYS } from './config.js';

const HOUR_MS = 3_600_000;

export interface HistoryModuleDeps {
  pool: Pool;
  authz: Authorizer;
  vocabulary: Pick<RbacVocabulary, 'object'>;
  logger: Logger;
  violations: ViolationSource;
  /**
   * Resolves once the index has started (its first sync). The reconcile waits for it, and then for
   * `installed()`: an index not yet synced, or one that does not see Gatekeeper, would make every recorded
   * violation look fixed.
   */
  synced: Promise<unknown>;
  /** Whether the index reads Gatekeeper's constraints in full now (state `installed`); always, if absent. */
  installed?: () => boolean;
  /** How often to look at `installed()` while it is false. */
  installedPollMs?: number;
  retentionDays: number;
  retentionEveryMs?: number;
}

/**
 * Violation history as an Enterprise module: the recorder on this replica (reconciled with the violations in
 * force at start, then fed every change), the history routes, and retention every hour (and once at start).
 */
export function createHistoryModule(deps: HistoryModuleDeps): EnterpriseModule {
  const recorder = createHistoryRecorder({ pool: deps.pool, logger: deps.logger, current: () => deps.violations.current() });
  const subscription = deps.violations.onViolationChange((change) => recorder.record(change));
  let poll: NodeJS.Timeout | undefined;
  const reconcileOnceInstalled = () => {
    if (!deps.installed || deps.installed()) return void recorder.reconcile();
    poll = setTimeout(reconcileOnceInstalled, deps.installedPollMs ?? 1_000);
    poll.unref();
  };
  void deps.synced.then(reconcileOnceInstalled, (error: unknown) => deps.logger.warn({ err: error }, 'violation index never synced: history not reconciled'));
  const retention = async () => {
    try {
      const removed = await applyHistoryRetention(deps.pool, deps.retentionDays);
      if (removed > 0) deps.logger.info({ removed, retentionDays: deps.retentionDays }, 'violation history retention removed resolved records');
    } catch (error) {
      deps.logger.warn({ err: error }, 'violation history retention did not run; next attempt in an hour');
    }
  };
  const first = setTimeout(() => void retention(), 5_000);
  const timer = setInterval(() => void retention(), deps.retentionEveryMs ?? HOUR_MS);
  first.unref();
  timer.unref();
  return {
    handlers: historyHandlers(createHistoryService(deps)),
    async stop() {
      clearTimeout(first);
      clearTimeout(poll);
      clearInterval(timer);
      subscription.close();
      // What is still queued gets a moment to be written; the other replicas (or the next start's
      // reconcile) cover the rest.
      await Promise.race([recorder.flushed(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
      recorder.stop();
    },
  };
}
