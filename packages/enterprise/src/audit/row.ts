import type { AuditEvent, AuditResult } from './types.js';

/** A row of `audit_events` as pg returns it. */
export interface AuditRow {
  seq: string;
  id: string;
  ts: Date;
  user_id: string;
  user_email: string;
  source_ip: string;
  user_agent: string;
  action: string;
  resource: string;
  name: string;
  project: string | null;
  namespace: string | null;
  request_id: string;
  result: AuditResult;
  http_status: number;
  details: Record<string, unknown>;
  prev_hash: string;
  hash: string;
  /** 1: hashed over the details (rows written before erasure existed); 2: over `details_digest`. */
  chain_version: number;
  details_digest: string | null;
  erased_at: Date | null;
  erased_by: string | null;
  erased_reason: string | null;
}

export const eventColumns =
  'id, ts, user_id, user_email, source_ip, user_agent, action, resource, name, project, namespace, request_id, result, http_status, details, erased_at, erased_by, erased_reason';

/** The columns `eventOf` reads. */
export type EventRow = Omit<AuditRow, 'seq' | 'prev_hash' | 'hash' | 'chain_version' | 'details_digest'>;

export function eventOf(row: EventRow): AuditEvent {
  const event: AuditEvent = {
    id: row.id,
    timestamp: row.ts.toISOString(),
    userId: row.user_id,
    userEmail: row.user_email,
    sourceIP: row.source_ip,
    userAgent: row.user_agent,
    action: row.action,
    resource: row.resource,
    name: row.name,
    requestId: row.request_id,
    result: row.result,
    httpStatus: row.http_status,
    details: row.details,
  };
  if (row.project !== null) event.project = row.project;
  if (row.namespace !== null) event.namespace = row.namespace;
  if (row.erased_at !== null) event.erased = { at: row.erased_at.toISOString(), by: row.erased_by ?? '', reason: row.erased_reason ?? '' };
  return event;
}
