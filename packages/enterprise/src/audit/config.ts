import type { AuditConfigUpdate } from '@portico/api/enterprise';
import type { Queryable } from './db.js';
import type { AuditConfig } from './types.js';

export interface ConfigRow {
  enabled: boolean;
  retention_days: number;
  max_stream_length: number;
  exclude_actions: string[];
  exclude_resources: string[];
}

/** The columns of `audit_config` a configuration is made of, as every statement that answers one selects them. */
export const configColumns = 'enabled, retention_days, max_stream_length, exclude_actions, exclude_resources';

export const configOf = (row: ConfigRow): AuditConfig => ({
  enabled: row.enabled,
  retentionDays: row.retention_days,
  maxStreamLength: row.max_stream_length,
  excludeActions: row.exclude_actions,
  excludeResources: row.exclude_resources,
});

/** Read on every audited operation, so a change applies on every replica at once. */
export async function readConfig(db: Queryable): Promise<AuditConfig> {
  const { rows } = await db.query<ConfigRow>({ name: 'portico-audit-config', text: `SELECT ${configColumns} FROM audit_config WHERE id = 1` });
  return configOf(rows[0]);
}

/**
 * Stores the whole configuration. `maxStreamLength` has no effect on a trail in PostgreSQL; it is kept and answered
 * so that a client that sends back the object it read can save it. Absent, the stored value stays.
 */
export async function writeConfig(db: Queryable, config: AuditConfigUpdate): Promise<AuditConfig> {
  const { rows } = await db.query<ConfigRow>(
    `UPDATE audit_config SET enabled = $1, retention_days = $2, exclude_actions = $3, exclude_resources = $4,
            max_stream_length = coalesce($5, max_stream_length), updated_at = now()
      WHERE id = 1 RETURNING ${configColumns}`,
    [config.enabled, config.retentionDays, config.excludeActions, config.excludeResources, config.maxStreamLength ?? null],
  );
  return configOf(rows[0]);
}

/**
 * Whether an operation is recorded under this configuration. An erasure always is, whatever the configuration says:
 * it changes the trail itself, and the contract makes it an audit event of its own.
 */
export const isRecorded = (config: AuditConfig, action: string, resource: string) =>
  (action === 'erase' && resource === 'audit') ||
  (config.enabled && !config.excludeActions.includes(action) && !config.excludeResources.includes(resource));
