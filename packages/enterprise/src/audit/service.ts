import type { RbacVocabulary } from '@portico/api';
import type * as api from '@portico/api/enterprise';
import { conflict, forbidden, isPorticoError, notFound, unavailable, type Actor, type Authorizer } from '@portico/core';
import type { Pool } from 'pg';
import type { Readable } from 'node:stream';
import { readConfig, writeConfig } from './config.js';
import { eraseEvent } from './erase.js';
import { exportEvents } from './export.js';
import { getEvent, listEvents } from './query.js';
import { auditStats } from './stats.js';
import type { AuditFilter } from './types.js';
import { verifyChain } from './verify.js';

export interface AuditExport {
  stream: Readable;
  contentType: string;
  filename: string;
}

/** The audit routes of contract §12.2, each one authorized on resource `audit` (Server Admin by default). */
export interface AuditService {
  list(actor: Actor, query: api.AuditListQuery): Promise<api.AuditEventList>;
  get(actor: Actor, id: string): Promise<api.AuditEvent>;
  /**
   * Erases the details of one event (`update` on `audit`: Server Admin), keeping its place in the chain; answers the
   * event as it now is, with `erased`. 404 for an unknown id; 409 for an event already erased or recorded before
   * erasure existed.
   */
  erase(actor: Actor, id: string, reason: string): Promise<api.AuditEvent>;
  export(actor: Actor, query: api.AuditExportQuery): Promise<AuditExport>;
  stats(actor: Actor): Promise<api.AuditStats>;
  getConfig(actor: Actor): Promise<api.AuditConfig>;
  putConfig(actor: Actor, config: api.AuditConfigUpdate): Promise<api.AuditConfig>;
  verify(actor: Actor): Promise<api.AuditVerify>;
}

const filterOf = (q: api.AuditFilterQuery): AuditFilter => ({
  userId: q.userId,
  action: q.action,
  resource: q.resource,
  project: q.project,
  namespace: q.namespace,
  result: q.result,
  from: q.from === undefined ? undefined : new Date(q.from),
  to: q.to === undefined ? undefined : new Date(q.to),
});

/** Anything PostgreSQL throws here is an outage to the caller: 503 with Retry-After, never a 500. */
async function database<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isPorticoError(error) ? error : unavailable('PostgreSQL', 5, error);
  }
}

const contentTypes = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson' } as const;

export function createAuditService(deps: { pool: Pool; authz: Pick<Authorizer, 'can'>; vocabulary: Pick<RbacVocabulary, 'object'> }): AuditService {
  const auditObject = deps.vocabulary.object('audit');
  const allow = (actor: Actor, action: 'get' | 'update') => {
    if (!deps.authz.can(actor, action, auditObject)) throw forbidden(`${action} on the audit trail is not allowed`, { resource: 'audit', action });
  };
  return {
    async list(actor, query) {
      allow(actor, 'get');
      return database(() => listEvents(deps.pool, { filter: filterOf(query), page: query.page, pageSize: query.pageSize, after: query.after }));
    },
    async get(actor, id) {
      allow(actor, 'get');
      const event = await database(() => getEvent(deps.pool, id));
      if (!event) throw notFound('audit event', id);
      return event;
    },
    async erase(actor, id, reason) {
      allow(actor, 'update');
      const outcome = await database(() => eraseEvent(deps.pool, id, { by: actor.id, reason }));
      if ('erased' in outcome) return outcome.erased;
      if ('missing' in outcome) throw notFound('audit event', id);
      if ('alreadyErased' in outcome) throw conflict(`audit event ${id} is already erased`, { id, erased: outcome.alreadyErased.erased });
      throw conflict(`audit event ${id} was recorded before erasure existed: its hash covers its details, which therefore cannot be erased`, { id });
    },
    async export(actor, query) {
      allow(actor, 'get');
      const stream = await database(() => exportEvents(deps.pool, filterOf(query), query.format));
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      return { stream, contentType: contentTypes[query.format], filename: `audit-${stamp}.${query.format}` };
    },
    async stats(actor) {
      allow(actor, 'get');
      return database(() => auditStats(deps.pool));
    },
    async getConfig(actor) {
      allow(actor, 'get');
      return database(() => readConfig(deps.pool));
    },
    async putConfig(actor, config) {
      allow(actor, 'update');
      return database(() => writeConfig(deps.pool, config));
    },
    async verify(actor) {
      allow(actor, 'get');
      return database(() => verifyChain(deps.pool));
    },
  };
}
