import { isPorticoError, unavailable, type Logger, type Operation, type OperationHook } from '@portico/core';
import type { Pool } from 'pg';
import { createAuditTrail } from './append.js';
import { isRecorded } from './config.js';
import { boundedUserAgent, clean, redact } from './redact.js';
import type { AuditConfig, AuditDraft, AuditResult } from './types.js';

interface Outcome {
  result: AuditResult;
  httpStatus: number;
  error?: { code: string; message: string };
}

function outcomeOf(error: unknown): Outcome {
  if (!isPorticoError(error)) return { result: 'error', httpStatus: 500, error: { code: 'INTERNAL_ERROR', message: 'internal error' } };
  const denied = error.status === 401 || error.status === 403;
  return { result: denied ? 'denied' : 'error', httpStatus: error.status, error: { code: error.code, message: error.message } };
}

/** A sign-in that did not succeed is its own action, so `action=login_failed` finds every failed attempt. */
const actionOf = (facts: Operation, outcome: Outcome) =>
  facts.action === 'login' && outcome.result !== 'success' ? 'login_failed' : facts.action;

function draftOf(facts: Operation, outcome: Outcome): AuditDraft {
  // The input is the one part that can hold secrets and is walked once. Text that came with the request is
  // cleaned; the route id, action and resource come from the route table.
  // Keys in sorted order at every depth, so the event's canonical text is one JSON.stringify (chain.ts).
  const input = redact(facts.input ?? {}, { secretFields: facts.secretFields });
  const { request } = facts;
  // Built in key order (error, input, operation, routeId), as the canonical text needs.
  const details: Record<string, unknown> = {};
  if (outcome.error) details.error = { errorCode: outcome.error.code, message: clean(outcome.error.message) };
  details.input = input;
  details.operation = facts.id;
  if (request.routeId !== undefined) details.routeId = request.routeId;
  const draft: AuditDraft = {
    // Before sign-in there is no actor: the attempt is recorded under the username it named.
    userId: clean(facts.actor?.id ?? facts.name),
    userEmail: clean(facts.actor?.email ?? ''),
    sourceIP: clean(request.sourceIP ?? ''),
    userAgent: boundedUserAgent(clean(request.userAgent ?? '')),
    action: actionOf(facts, outcome),
    resource: facts.resource,
    name: clean(facts.name),
    requestId: clean(request.requestId ?? ''),
    result: outcome.result,
    httpStatus: outcome.httpStatus,
    details,
  };
  if (facts.project !== undefined) draft.project = clean(facts.project);
  if (facts.namespace !== undefined) draft.namespace = clean(facts.namespace);
  return draft;
}

const trailDown = (cause: unknown) => unavailable('audit trail (PostgreSQL)', 5, cause);

/**
 * The one place operations are recorded: a hook of core's operation seam, so it wraps every audited operation
 * whoever calls it (the HTTP server or an embedding program).
 * Fail closed: the configuration is read from PostgreSQL before the operation runs (which also proves the
 * database answers), so with PostgreSQL down nothing runs and the caller gets 503. The outcome is appended
 * before the caller hears of it, so nothing acknowledged is missing from the trail. If PostgreSQL fails in
 * the moment between the operation and its record, the caller gets 503 and the record goes to the log.
 */
export function createAuditRecorder(deps: { pool: Pool; logger: Logger }): OperationHook {
  // Operations that arrive while a statement is on its way share it: its answer still comes after they arrived,
  // so it proves PostgreSQL answered after each of them did (see createAuditTrail).
  const trail = createAuditTrail(deps.pool);
  const currentConfig = () => trail.check();
  const append = (draft: AuditDraft) => trail.append(draft);
  return async <T>(facts: Operation, run: () => Promise<T>): Promise<T> => {
    let config: AuditConfig;
    try {
      config = await currentConfig();
    } catch (error) {
      throw trailDown(error);
    }
    let outcome: Outcome;
    let value: T | undefined;
    let thrown: unknown;
    try {
      value = await run();
      outcome = { result: 'success', httpStatus: facts.request.successStatus ?? (facts.action === 'create' ? 201 : 200) };
    } catch (error) {
      thrown = error;
      outcome = outcomeOf(error);
    }
    const draft = draftOf(facts, outcome);
    if (isRecorded(config, draft.action, draft.resource)) {
      try {
        await append(draft);
      } catch (error) {
        deps.logger.error({ err: error, audit: draft }, 'audit record could not be written; the caller was told 503');
        throw trailDown(error);
      }
    }
    if (outcome.result !== 'success') throw thrown;
    return value as T;
  };
}
