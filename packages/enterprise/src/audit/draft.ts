import { isPorticoError, type Operation } from '@portico/core';
import { boundedUserAgent, clean, redact } from './redact.js';
import type { AuditDraft, AuditResult } from './types.js';

/** How an operation ended, as its event says it. */
export interface Outcome {
  result: AuditResult;
  httpStatus: number;
  error?: { code: string; message: string };
}

export function outcomeOf(error: unknown): Outcome {
  if (!isPorticoError(error)) return { result: 'error', httpStatus: 500, error: { code: 'INTERNAL_ERROR', message: 'internal error' } };
  const denied = error.status === 401 || error.status === 403;
  return { result: denied ? 'denied' : 'error', httpStatus: error.status, error: { code: error.code, message: error.message } };
}

export const successOf = (facts: Operation): Outcome => ({
  result: 'success',
  httpStatus: facts.request.successStatus ?? (facts.action === 'create' ? 201 : 200),
});

/** The error code of an event recorded for an operation whose ending no process recorded (recovery.ts). */
export const OUTCOME_UNKNOWN = 'OUTCOME_UNKNOWN';

/**
 * What an intent holds: the event recovery records if the operation's own ending never is. Never `success` (whoever
 * called may have heard anything, or nothing), `httpStatus` 0 (no answer is known), and the operation's own action:
 * a sign-in whose ending is unknown is not known to have failed.
 */
const unknownOutcome: Outcome = {
  result: 'error',
  httpStatus: 0,
  error: { code: OUTCOME_UNKNOWN, message: 'the operation began but how it ended was not recorded (its process stopped, or PostgreSQL was gone until it did)' },
};

/** A sign-in that did not succeed is its own action, so `action=login_failed` finds every failed attempt. */
const actionOf = (facts: Operation, outcome: Outcome) =>
  facts.action === 'login' && outcome.result !== 'success' && outcome !== unknownOutcome ? 'login_failed' : facts.action;

/**
 * The input is the one part of an operation that can hold secrets; it is walked once (the intent's draft and the
 * event share the copy). Keys come out in sorted order at every depth, so an event's canonical text is one
 * JSON.stringify (chain.ts).
 */
export const redactedInput = (facts: Operation): unknown => redact(facts.input ?? {}, { secretFields: facts.secretFields });

export function draftOf(facts: Operation, outcome: Outcome, input = redactedInput(facts)): AuditDraft {
  // Text that came with the request is cleaned; the route id, action and resource come from the route table.
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

/** The draft an intent stores before the operation runs: redacted as any event is. */
export const unknownOutcomeDraft = (facts: Operation, input = redactedInput(facts)): AuditDraft => draftOf(facts, unknownOutcome, input);
