import { z } from 'zod';
import { Timestamp } from '../common.js';
import type { EnterpriseRouteDef } from './routes.js';

/** Crockford base32, 26 characters: the id of an audit event. */
export const Ulid = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a ULID (26 characters of Crockford base32)');

export const AuditResult = z.enum(['success', 'denied', 'error']);
export type AuditResult = z.infer<typeof AuditResult>;

export const AuditEvent = z.object({
  id: Ulid,
  timestamp: Timestamp,
  userId: z.string(),
  userEmail: z.string(),
  sourceIP: z.string(),
  userAgent: z.string(),
  action: z.string(),
  resource: z.string(),
  name: z.string(),
  project: z.string().optional(),
  namespace: z.string().optional(),
  requestId: z.string(),
  result: AuditResult,
  httpStatus: z.number().int(),
  details: z.record(z.string(), z.unknown()),
});
export type AuditEvent = z.infer<typeof AuditEvent>;

export const AuditEventList = z.object({
  events: z.array(AuditEvent),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
  /** Present when more events follow: pass it as `after` for the next page. */
  nextCursor: Ulid.optional(),
});
export type AuditEventList = z.infer<typeof AuditEventList>;

const Instant = z.iso.datetime({ offset: true, message: 'must be an RFC 3339 timestamp' });
const Word = z.string().min(1).max(253);

/** The filters of a listing and of an export. */
export const AuditFilterQuery = z.object({
  userId: Word.optional(),
  action: Word.optional(),
  resource: Word.optional(),
  project: Word.optional(),
  namespace: Word.optional(),
  result: AuditResult.optional(),
  from: Instant.optional(),
  to: Instant.optional(),
});
export type AuditFilterQuery = z.infer<typeof AuditFilterQuery>;

export const AuditListQuery = AuditFilterQuery.extend({
  page: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').default(1),
  pageSize: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(200, 'must be at most 200').default(50),
  /** Cursor paging: events older than this id (newest first); takes the place of `page`. */
  after: Ulid.optional(),
});
export type AuditListQuery = z.infer<typeof AuditListQuery>;

export const AuditExportQuery = AuditFilterQuery.extend({ format: z.enum(['csv', 'ndjson']).default('ndjson') });
export type AuditExportQuery = z.infer<typeof AuditExportQuery>;

export const AuditEventParams = z.object({ id: Ulid });

export const AuditStats = z.object({
  totalEvents: z.number().int(),
  eventsToday: z.number().int(),
  topUsers: z.array(z.object({ userId: z.string(), count: z.number().int() })),
  deniedAttempts: z.number().int(),
  byActionToday: z.record(z.string(), z.number().int()),
  byResultToday: z.record(z.string(), z.number().int()),
});
export type AuditStats = z.infer<typeof AuditStats>;

export const AuditConfig = z.strictObject({
  enabled: z.boolean(),
  retentionDays: z.number().int('must be a whole number').min(1, 'must be at least 1').max(3650, 'must be at most 3650'),
  excludeActions: z.array(Word).max(100),
  excludeResources: z.array(Word).max(100),
});
export type AuditConfig = z.infer<typeof AuditConfig>;

export const AuditVerify = z.object({ ok: z.boolean(), checked: z.number().int(), firstBrokenId: Ulid.optional() });
export type AuditVerify = z.infer<typeof AuditVerify>;

/** The audit routes of one path form (relative paths, Form A ids); both forms answer the same. */
const auditRouteRows = [
  { id: 'listAuditEvents', method: 'GET', path: '/events', auth: 'user', tag: 'audit', summary: 'Audit events, newest first (filters; page or `after` cursor)', query: AuditListQuery, status: 200, response: AuditEventList },
  { id: 'exportAuditEvents', method: 'GET', path: '/events/export', auth: 'user', tag: 'audit', summary: 'Every matching audit event, streamed as CSV or NDJSON (attachment)', query: AuditExportQuery, status: 200 },
  { id: 'getAuditEvent', method: 'GET', path: '/events/{id}', auth: 'user', tag: 'audit', summary: 'One audit event', params: AuditEventParams, status: 200, response: AuditEvent },
  { id: 'auditStats', method: 'GET', path: '/stats', auth: 'user', tag: 'audit', summary: 'Totals, today\'s activity by action and result, top users', status: 200, response: AuditStats },
  { id: 'getAuditConfig', method: 'GET', path: '/config', auth: 'user', tag: 'audit', summary: 'Audit settings (every replica applies them)', status: 200, response: AuditConfig },
  { id: 'updateAuditConfig', method: 'PUT', path: '/config', auth: 'user', tag: 'audit', summary: 'Change audit settings', body: AuditConfig, status: 200, response: AuditConfig, operation: { action: 'config_update', resource: 'audit' } },
  { id: 'verifyAudit', method: 'GET', path: '/verify', auth: 'user', tag: 'audit', summary: 'Recompute the hash chain; names the first broken event', status: 200, response: AuditVerify },
] as const satisfies readonly (EnterpriseRouteDef & { operation?: { action: string; resource: string } })[];

/** An audit row as the Form A ids name it (what the SDK calls). */
export type AuditRouteRow = (typeof auditRouteRows)[number];

const auditRoutesUnder = (prefix: string, suffix: string): EnterpriseRouteDef[] =>
  auditRouteRows.map((def) => ({ ...def, id: `${def.id}${suffix}`, path: `${prefix}${def.path}`, feature: 'audit' }));

/**
 * §12.2 in both path forms, gated by the license feature `audit`: Form A under `/api/v1/audit`, Form B under
 * `/api/v1/settings/audit` (ids end in `FormB`).
 */
export const auditRoutes: readonly EnterpriseRouteDef[] = [...auditRoutesUnder('/api/v1/audit', ''), ...auditRoutesUnder('/api/v1/settings/audit', 'FormB')];
