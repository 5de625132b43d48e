import { historyRetentionDays } from './compliance/history/config.js';
import { assertSchemaName } from './db/pool.js';

export interface EnterpriseConfig {
  databaseUrl: string;
  schema: string;
  /** JWKS file of extra license-verification keys (rotation, tests). */
  licenseKeysFile?: string;
  /** A license token file read at start when no license Secret exists yet. */
  licenseFile?: string;
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
  return {
    databaseUrl,
    schema,
    licenseKeysFile: env.PORTICO_LICENSE_KEYS?.trim() || undefined,
    licenseFile: env.PORTICO_LICENSE_FILE?.trim() || undefined,
    complianceRetentionDays: historyRetentionDays(env),
  };
}
