import type { Logger, Portico } from '@portico/core';
import type { Pool } from 'pg';
import type { EnterpriseModule } from '../plugin.js';
import { readConfig } from './config.js';
import { auditHandlers } from './handlers.js';
import { applyRetention } from './retention.js';
import { createAuditService } from './service.js';
import { auditOperations } from '../operations.js';

export { createAuditRecorder } from './recorder.js';
export { createAuditService, type AuditService } from './service.js';
export { verifyChain } from './verify.js';

const HOUR_MS = 3_600_000;

/**
 * The audit trail's routes as an Enterprise module: the handlers of its rows in both path forms (its service's
 * writes wrapped as operations) and the hourly retention job (one replica at a time does the work; a failed
 * run is logged and tried again the next hour). Its hook, which records every operation, is core-plugin.ts's.
 */
export function createAuditModule(deps: { pool: Pool; portico: Pick<Portico, 'authz' | 'vocabulary' | 'operations'>; logger: Logger; retentionEveryMs?: number }): EnterpriseModule {
  const { portico } = deps;
  const service = portico.operations.wrap(createAuditService({ pool: deps.pool, authz: portico.authz, vocabulary: portico.vocabulary }), auditOperations);
  const retention = async () => {
    try {
      const removed = await applyRetention(deps.pool, (await readConfig(deps.pool)).retentionDays);
      if (removed > 0) deps.logger.info({ removed }, 'audit retention removed old days');
    } catch (error) {
      deps.logger.warn({ err: error }, 'audit retention did not run; next attempt in an hour');
    }
  };
  const timer = setInterval(() => void retention(), deps.retentionEveryMs ?? HOUR_MS);
  timer.unref();
  return {
    handlers: auditHandlers(service),
    stop: () => clearInterval(timer),
  };
}
