import { z } from 'zod';
import { Timestamp } from '../common.js';
import { CompliancePageQuery, EnforcementAction } from './compliance.js';
import type { EnterpriseRouteDef } from './route-def.js';

/** One violation of one constraint by one resource, from first seen to resolved (§12.5, kept in PostgreSQL). */
export const ViolationHistoryRecord = z.object({
  /** The violation's identity (constraint and resource); a violation that comes back gets a new record with the same key. */
  key: z.string(),
  constraintKind: z.string(),
  constraintName: z.string(),
  resourceKind: z.string(),
  /** Empty for a cluster-scoped resource. */
  resourceNamespace: z.string(),
  resourceName: z.string(),
  enforcementAction: EnforcementAction,
  message: z.string(),
  firstSeen: Timestamp,
  resolvedAt: Timestamp.nullable(),
  status: z.enum(['active', 'resolved']),
});
export type ViolationHistoryRecord = z.infer<typeof ViolationHistoryRecord>;

/** The list envelope of §12.5 (`total`, not `totalCount`). */
export const ViolationHistoryList = z.object({
  items: z.array(ViolationHistoryRecord),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});
export type ViolationHistoryList = z.infer<typeof ViolationHistoryList>;

export const ViolationHistoryCount = z.object({
  count: z.number().int(),
  /** Resolved records older than this many days are deleted. */
  retentionDays: z.number().int(),
});
export type ViolationHistoryCount = z.infer<typeof ViolationHistoryCount>;

const Instant = z.iso.datetime({ offset: true, message: 'must be an RFC 3339 timestamp' });
/**
 * One segment of `Kind/name` or `Kind/namespace/name`: anything but `/` and control characters (C0, DEL, C1). A NUL
 * or a line break in a filter is the caller's 400, checked before any query runs (PostgreSQL refuses a NUL in
 * text, and an export must not fail after its first byte).
 */
const Segment = '[^/\\u0000-\\u001f\\u007f-\\u009f]{1,253}';

/**
 * The filters of a listing, a count and an export. `since`/`until` select the records that were active at
 * some moment of the window: first seen at or before `until`, and not resolved before `since`.
 */
export const ViolationHistoryFilterQuery = z.object({
  since: Instant.optional(),
  until: Instant.optional(),
  enforcement: EnforcementAction.optional(),
  constraint: z.string().regex(new RegExp(`^${Segment}/${Segment}$`), 'must be Kind/name').optional(),
  resource: z.string().regex(new RegExp(`^${Segment}(/${Segment})?/${Segment}$`), 'must be Kind/namespace/name (Kind/name when cluster-scoped)').optional(),
  status: z.enum(['active', 'resolved', 'all']).default('all'),
});
export type ViolationHistoryFilterQuery = z.infer<typeof ViolationHistoryFilterQuery>;

export const ViolationHistoryListQuery = ViolationHistoryFilterQuery.extend(CompliancePageQuery.shape);
export type ViolationHistoryListQuery = z.infer<typeof ViolationHistoryListQuery>;

/** An export names where it starts: `since` is required, so nobody downloads years by accident. */
export const ViolationHistoryExportQuery = ViolationHistoryFilterQuery.extend({ since: Instant });
export type ViolationHistoryExportQuery = z.infer<typeof ViolationHistoryExportQuery>;

/**
 * §12.5 violation history, gated by the license feature `compliance`. Any signed-in user may call them: the
 * answers hold only the records of the caller's projects (everything for a Server Admin). §12.5 gives these
 * no `/gatekeeper/*` name, so they have one path each.
 */
export const complianceHistoryRoutes = [
  {
    id: 'listViolationHistory', method: 'GET', path: '/api/v1/compliance/violations/history', auth: 'user', tag: 'compliance',
    summary: 'Violation history records, first seen newest first (filters, pages)', query: ViolationHistoryListQuery, status: 200, response: ViolationHistoryList, feature: 'compliance', family: 'compliance',
  },
  {
    id: 'countViolationHistory', method: 'GET', path: '/api/v1/compliance/violations/history/count', auth: 'user', tag: 'compliance',
    summary: 'How many history records match, and the retention in days', query: ViolationHistoryFilterQuery, status: 200, response: ViolationHistoryCount, feature: 'compliance', family: 'compliance',
  },
  {
    id: 'exportViolationHistory', method: 'GET', path: '/api/v1/compliance/violations/history/export', auth: 'user', tag: 'compliance',
    summary: 'Every matching history record as CSV, streamed (attachment; `since` required)', query: ViolationHistoryExportQuery, status: 200, feature: 'compliance', family: 'compliance',
  },
] as const satisfies readonly EnterpriseRouteDef[];

export type ComplianceHistoryRouteRow = (typeof complianceHistoryRoutes)[number];
