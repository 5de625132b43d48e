/** Days a resolved violation stays in the history unless `PORTICO_COMPLIANCE_RETENTION_DAYS` says otherwise. */
export const DEFAULT_HISTORY_RETENTION_DAYS = 90;

/** `PORTICO_COMPLIANCE_RETENTION_DAYS`: a whole number of days, 1–3650; anything else stops start-up naming it. */
export function historyRetentionDays(env: NodeJS.ProcessEnv): number {
  const text = env.PORTICO_COMPLIANCE_RETENTION_DAYS?.trim();
  if (!text) return DEFAULT_HISTORY_RETENTION_DAYS;
  const days = /^[0-9]{1,4}$/.test(text) ? Number(text) : Number.NaN;
  if (!(days >= 1 && days <= 3650)) throw new Error(`PORTICO_COMPLIANCE_RETENTION_DAYS must be a whole number of days from 1 to 3650 (got "${text}")`);
  return days;
}
