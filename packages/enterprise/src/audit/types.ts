import type { AuditConfig, AuditEvent, AuditResult } from '@portico/api/enterprise';

// The record and the configuration are the contract's own types; the trail adds nothing to them.
export type { AuditConfig, AuditEvent, AuditResult };

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
