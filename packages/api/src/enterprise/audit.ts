import { z } from 'zod';
import { Timestamp } from '../common.js';
import type { EnterpriseRouteDef } from './route-def.js';

/** Crockford base32, 26 characters: the id of an audit event. */
export const Ulid = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/, 'must be a ULID (26 characters of Crockford base32)');

export const AuditResult = z.enum(['success', 'denied', 'error']);
export type AuditResult = z.infer<typeof AuditResult>;

/** Who erased an event's details, when and why (§12.2). */
export const AuditErasure = z.object({ at: Timestamp, by: z.string(), reason: z.string() });
export type AuditErasure = z.infer<typeof AuditErasure>;

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
  /** `{}` once erased. */
  details: z.record(z.string(), z.unknown()),
  /** Present when a Server Admin erased the event's details: when, by whom, why. The row's place in the chain stays. */
  erased: AuditErasure.optional(),
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
/**
 * No control character (C0, DEL, C1): such text is never a name, user or action, PostgreSQL refuses a NUL, and a
 * filter or field holding one is a 400 naming it, not a 503.
 */
const noControl = /^[^\u0000-\u001F\u007F-\u009F]*$/;
const Word = z.string().min(1).max(253).regex(noControl, 'must not contain control characters');

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

/** `POST …/events/{id}/erase`: why the details go (kept with the event and in the erasure's own event). */
export const AuditEraseRequest = z.strictObject({
  reason: z.string().trim().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters').regex(noControl, 'must not contain control characters'),
});
export type AuditEraseRequest = z.infer<typeof AuditEraseRequest>;

export const AuditStats = z.object({
  totalEvents: z.number().int(),
  eventsToday: z.number().int(),
  topUsers: z.array(z.object({ userId: z.string(), count: z.number().int() })),
  deniedAttempts: z.number().int(),
  byActionToday: z.record(z.string(), z.number().int()),
  byResultToday: z.record(z.string(), z.number().int()),
});
export type AuditStats = z.infer<typeof AuditStats>;

/**
 * Accepted and kept, without effect on a trail in PostgreSQL: clients written for a stream-backed trail send back
 * the whole object they read, this field included (§12.2).
 */
const MaxStreamLength = z.number().int('must be a whole number').min(1000, 'must be at least 1000').max(2_147_483_647, 'must be at most 2147483647');

export const AuditConfig = z.strictObject({
  enabled: z.boolean(),
  retentionDays: z.number().int('must be a whole number').min(1, 'must be at least 1').max(3650, 'must be at most 3650'),
  maxStreamLength: MaxStreamLength,
  excludeActions: z.array(Word).max(100),
  excludeResources: z.array(Word).max(100),
});
export type AuditConfig = z.infer<typeof AuditConfig>;

/** The body of `PUT …/config`: the object `GET` answers; without `maxStreamLength`, the stored one is kept. */
export const AuditConfigUpdate = AuditConfig.extend({ maxStreamLength: MaxStreamLength.optional() });
export type AuditConfigUpdate = z.infer<typeof AuditConfigUpdate>;

export const AuditVerify = z.object({ ok: z.boolean(), checked: z.number().int(), firstBrokenId: Ulid.optional() });
export type AuditVerify = z.infer<typeof AuditVerify>;

/** The audit routes of one path form (relative paths, Form A ids); both forms answer the same. */
const auditRouteRows = [
  { id: 'listAuditEvents', method: 'GET', path: '/events', auth: 'user', tag: 'audit', summary: 'Audit events, newest first (filters; page or `after` cursor)', query: AuditListQuery, status: 200, response: AuditEventList },
  { id: 'exportAuditEvents', method: 'GET', path: '/events/export', auth: 'user', tag: 'audit', summary: 'Every matching audit event, streamed as CSV or NDJSON (attachment)', query: AuditExportQuery, status: 200 },
  { id: 'getAuditEvent', method: 'GET', path: '/events/{id}', auth: 'user', tag: 'audit', summary: 'One audit event', params: AuditEventParams, status: 200, response: AuditEvent },
  { id: 'eraseAuditEvent', method: 'POST', path: '/events/{id}/erase', auth: 'user', tag: 'audit', summary: 'Erase the details of one event (Server Admin); it keeps its place in the chain and says `erased`', params: AuditEventParams, body: AuditEraseRequest, status: 200, response: AuditEvent, operation: 'audit.erase' },
  { id: 'auditStats', method: 'GET', path: '/stats', auth: 'user', tag: 'audit', summary: 'Totals, today\'s activity by action and result, top users', status: 200, response: AuditStats },
  { id: 'getAuditConfig', method: 'GET', path: '/config', auth: 'user', tag: 'audit', summary: 'Audit settings (every replica applies them)', status: 200, response: AuditConfig },
  { id: 'updateAuditConfig', method: 'PUT', path: '/config', auth: 'user', tag: 'audit', summary: 'Change audit settings', body: AuditConfigUpdate, status: 200, response: AuditConfig, operation: 'audit.config' },
  { id: 'verifyAudit', method: 'GET', path: '/verify', auth: 'user', tag: 'audit', summary: 'Recompute the hash chain; names the first broken event', status: 200, response: AuditVerify },
] as const satisfies readonly Omit<EnterpriseRouteDef, 'family'>[];

/** An audit row as the Form A ids name it (what the SDK calls). */
export type AuditRouteRow = (typeof auditRouteRows)[number];

/** A row of one form: its id with the form's suffix, its path under the form's prefix, its family. */
type AuditRowUnder<R, Suffix extends string, Family extends 'audit' | 'auditSettings'> = R extends { id: infer I extends string }
  ? Omit<R, 'id' | 'path'> & { id: `${I}${Suffix}`; path: string; feature: 'audit'; family: Family }
  : never;

const auditRoutesUnder = <Suffix extends string, Family extends 'audit' | 'auditSettings'>(prefix: string, suffix: Suffix, family: Family) =>
  auditRouteRows.map((def) => ({ ...def, id: `${def.id}${suffix}`, path: `${prefix}${def.path}`, feature: 'audit', family })) as AuditRowUnder<AuditRouteRow, Suffix, Family>[];

/**
 * §12.2 in both path forms, gated by the license feature `audit`: Form A under `/api/v1/audit`, Form B under
 * `/api/v1/settings/audit` (ids end in `FormB`).
 */
export const auditRoutes = [...auditRoutesUnder('/api/v1/audit', '', 'audit'), ...auditRoutesUnder('/api/v1/settings/audit', 'FormB', 'auditSettings')];
