import type { RbacVocabulary } from '@portico/api';
import type * as api from '@portico/api/enterprise';
import type { Actor, Authorizer } from '@portico/core';
import type { Pool } from 'pg';
import type { Readable } from 'node:stream';
import { withDatabase } from '../../db/outage.js';
import { createComplianceAccess, type ComplianceAccess } from '../access.js';
import { exportHistory } from './export.js';
import { constraintOf, resourceOf, type HistoryFilter, type HistoryScope } from './filter-sql.js';
import { countHistory, listHistory } from './query.js';

export interface HistoryDownload {
  stream: Readable;
  contentType: string;
  filename: string;
}

/** The history routes of §12.5: every answer holds only what the caller may see. */
export interface HistoryService {
  list(actor: Actor, query: api.ViolationHistoryListQuery): Promise<api.ViolationHistoryList>;
  count(actor: Actor, query: api.ViolationHistoryFilterQuery): Promise<api.ViolationHistoryCount>;
  export(actor: Actor, query: api.ViolationHistoryExportQuery): Promise<HistoryDownload>;
}

/**
 * The same rule as live violations (compliance/access.ts): a Server Admin, or a holder of a global
 * `compliance` `get` policy, sees every record; anybody else those of the projects they are a member of (the
 * project stored with the record), and nothing else — not even that others exist.
 */
export function historyScope(access: Pick<ComplianceAccess, 'readsPolicies'>, authz: Pick<Authorizer, 'memberProjects'>, actor: Actor): HistoryScope {
  if (access.readsPolicies(actor)) return { all: true };
  return { all: false, projects: authz.memberProjects(actor) };
}

export function filterOf(q: api.ViolationHistoryFilterQuery): HistoryFilter {
  return {
    since: q.since === undefined ? undefined : new Date(q.since),
    until: q.until === undefined ? undefined : new Date(q.until),
    enforcement: q.enforcement,
    constraint: q.constraint === undefined ? undefined : constraintOf(q.constraint),
    resource: q.resource === undefined ? undefined : resourceOf(q.resource),
    status: q.status,
  };
}

export function createHistoryService(deps: { pool: Pool; authz: Authorizer; vocabulary: Pick<RbacVocabulary, 'object'>; retentionDays: number }): HistoryService {
  const access = createComplianceAccess(deps.authz, deps.vocabulary);
  const scopeOf = (actor: Actor) => historyScope(access, deps.authz, actor);
  return {
    list: (actor, query) => withDatabase(() => listHistory(deps.pool, scopeOf(actor), filterOf(query), query.page, query.pageSize)),
    async count(actor, query) {
      const count = await withDatabase(() => countHistory(deps.pool, scopeOf(actor), filterOf(query)));
      return { count, retentionDays: deps.retentionDays };
    },
    async export(actor, query) {
      const stream = await withDatabase(() => exportHistory(deps.pool, scopeOf(actor), filterOf(query)));
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      return { stream, contentType: 'text/csv; charset=utf-8', filename: `violation-history-${stamp}.csv` };
    },
  };
}
