import type { Queryable } from './db.js';
import type { AuditConfig } from './types.js';

export interface ConfigRow {
  enabled: boolean;
  retention_days: number;
  exclude_actions: string[];
  exclude_resources: string[];
}

export const configOf = (row: ConfigRow): AuditConfig => ({
  enabled: row.enabled,
  retentionDays: row.retention_days,
  excludeActions: row.exclude_actions,
  excludeResources: row.exclude_resources,
});

/** Read on every audited operation, so a change applies on every replica at once. */
export async function readConfig(db: Queryable): Promise<AuditConfig> {
  const { rows } = await db.query<ConfigRow>({ name: 'portico-audit-config', text: 'SELECT enabled, retention_days, exclude_actions, exclude_resources FROM audit_config WHERE id = 1' });
  return configOf(rows[0]);
}

export async function writeConfig(db: Queryable, config: AuditConfig): Promise<AuditConfig> {
  const { rows } = await db.query<ConfigRow>(
    `UPDATE audit_config SET enabled = $1, retention_days = $2, exclude_actions = $3, exclude_resources = $4, updated_at = now()
      WHERE id = 1 RETURNING enabled, retention_days, exclude_actions, exclude_resources`,
    [config.enabled, config.retentionDays, config.excludeActions, config.excludeResources],
  );
  return configOf(rows[0]);
}

/** Whether an operation is recorded under this configuration. */
export const isRecorded = (config: AuditConfig, action: string, resource: string) =>
  config.enabled && !config.excludeActions.includes(action) && !config.excludeResources.includes(resource);
