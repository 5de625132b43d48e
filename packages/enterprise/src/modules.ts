import type { Logger, Portico } from '@portico/core';
import { createAuditModule } from './audit/index.js';
import { createComplianceModule } from './compliance/index.js';
import { createHistoryModule, DEFAULT_HISTORY_RETENTION_DAYS } from './compliance/history/index.js';
import type { Enterprise } from './enterprise.js';
import type { EnterpriseModule } from './plugin.js';

/**
 * The Enterprise modules beside license, categories and views, each contributing routes, handlers, RBAC rows
 * and hooks to the one Enterprise plugin. The audit trail, compliance (§12.5) and its violation history
 * (PostgreSQL, fed by the compliance index's violation changes) register here.
 */
export function createEnterpriseModules(ee: Enterprise, portico: Portico, logger: Logger): EnterpriseModule[] {
  const compliance = createComplianceModule({ portico, license: ee.license, logger, auditMs: ee.config.gatekeeperAuditMs });
  const history = createHistoryModule({
    pool: ee.database.pool, authz: portico.authz, vocabulary: portico.vocabulary, logger, violations: compliance.changes, synced: compliance.ready,
    installed: () => compliance.index.state() === 'installed',
    retentionDays: ee.config.complianceRetentionDays ?? DEFAULT_HISTORY_RETENTION_DAYS,
  });
  return [createAuditModule({ pool: ee.database.pool, portico, logger }), compliance, history];
}
