/** One record of the trail, as the contract shows it. */
export interface AuditEvent {
  id: string;
  timestamp: string;
  userId: string;
  userEmail: string;
  sourceIP: string;
  userAgent: string;
  action: string;
  resource: string;
  name: string;
  project?: string;
  namespace?: string;
  requestId: string;
  result: AuditResult;
  httpStatus: number;
  details: Record<string, unknown>;
}

export type AuditResult = 'success' | 'denied' | 'error';

export interface AuditConfig {
  enabled: boolean;
  retentionDays: number;
  excludeActions: string[];
  excludeResources: string[];
}

/** Filters of a listing or an export; `from`/`to` are instants (RFC 3339 on the wire). */
export interface AuditFilter {
  userId?: string;
  action?: string;
  resource?: string;
  project?: string;
  namespace?: string;
  result?: AuditResult;
  from?: Date;
  to?: Date;
}

/** An event before the trail gives it an id and a place in the chain. */
export type AuditDraft = Omit<AuditEvent, 'id' | 'timestamp'>;
