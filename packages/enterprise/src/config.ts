import { historyRetentionDays } from './compliance/history/config.js';
import { assertSchemaName } from './db/pool.js';

export interface EnterpriseConfig {
  databaseUrl: string;
  schema: string;
  /** JWKS file of extra license-verification keys (rotation, tests). */
  licenseKeysFile?: string;
  /** A license token file read at start when no license Secret exists yet. */
  licenseFile?: string;
  /** Full audit period of the simulated Gatekeeper on the embedded cluster (PORTICO_GATEKEEPER_AUDIT_MS, default 60 s). */
  gatekeeperAuditMs?: number;
  /** Days resolved violations stay in the compliance history (`PORTICO_COMPLIANCE_RETENTION_DAYS`, default 90). */
  complianceRetentionDays?: number;
}

/** Reads the Enterprise variables; a missing or invalid one stops start-up with a message naming it. */
export function loadEnterpriseConfig(env: NodeJS.ProcessEnv): EnterpriseConfig {
  const databaseUrl = env.DATABASE_URL?.trim();
  if (!databaseUrl) throw new Error('DATABASE_URL is required by the Enterprise edition (postgres://user:password@host:5432/db)');
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) throw new Error('DATABASE_URL must be a postgres:// or postgresql:// URL');
  let schema: string;
  try {
    schema = assertSchemaName(env.PORTICO_DB_SCHEMA?.trim() || 'portico_ee');
  } catch (error) {
    throw new Error((error as Error).message);
  }
  const auditMs = env.PORTICO_GATEKEEPER_AUDIT_MS?.trim();
  if (auditMs !== undefined && auditMs !== '' && !(/^\d{1,9}$/.test(auditMs) && Number(auditMs) >= 100)) {
    throw new Error('PORTICO_GATEKEEPER_AUDIT_MS must be a whole number of milliseconds, at least 100');
  }
  return {
    databaseUrl,
    schema,
    licenseKeysFile: env.PORTICO_LICENSE_KEYS?.trim() || undefined,
    licenseFile: env.PORTICO_LICENSE_FILE?.trim() || undefined,
    ...(auditMs ? { gatekeeperAuditMs: Number(auditMs) } : {}),
    complianceRetentionDays: historyRetentionDays(env),
  };
}
