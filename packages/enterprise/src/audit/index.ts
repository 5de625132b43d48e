import type { RbacResourceRow } from '@portico/api';
import { auditRoutes } from '@portico/api/enterprise';
import type { Authorizer, Logger } from '@portico/core';
import type { Pool } from 'pg';
import type { EnterpriseModule } from '../plugin.js';
import { readConfig } from './config.js';
import { auditHandlers } from './handlers.js';
import { createAuditRecorder } from './recorder.js';
import { applyRetention } from './retention.js';
import { createAuditService } from './service.js';

export { createAuditRecorder } from './recorder.js';
export { createAuditService, type AuditService } from './service.js';
export { verifyChain } from './verify.js';

const HOUR_MS = 3_600_000;

/** `audit` in the RBAC vocabulary: a global resource, Server Admin by default, grantable by global policy. */
const auditResource: RbacResourceRow = {
  resource: 'audit', base: 'audit', segments: [], actions: ['get', 'update'], policy: false,
  grantedBy: 'Server Admin (get: read, export, verify; update: configuration); grantable by global policy',
};

/**
 * The audit trail as an Enterprise module: the operation hook that records every mutation, sign-in,
 * sign-out and denial; the audit routes in both path forms; the `audit` RBAC row; and the hourly retention
 * job (one replica at a time does the work; a failed run is logged and tried again the next hour).
 */
export function createAuditModule(deps: { pool: Pool; authz: Pick<Authorizer, 'can'>; logger: Logger; retentionEveryMs?: number }): EnterpriseModule {
  const service = createAuditService(deps);
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
    routes: auditRoutes,
    handlers: auditHandlers(service),
    rbacResources: [auditResource],
    onOperation: createAuditRecorder(deps),
    stop: () => clearInterval(timer),
  };
}
