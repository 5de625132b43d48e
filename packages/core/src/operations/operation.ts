import type { Actor } from '../actor.js';

/** What the transport knows about the request an operation runs for; empty for a call from an embedding program. */
export interface RequestFacts {
  requestId?: string;
  /** The client address under the trusted-proxy rule of §9. */
  sourceIP?: string;
  userAgent?: string;
  /** The route row that named this operation. */
  routeId?: string;
  /** The status the route answers on success. */
  successStatus?: number;
}

/**
 * One mutating operation of core, with the facts an audit trail records. Core builds it from the operation's
 * row (operations.ts) and the method's arguments, for every caller alike: the HTTP server only adds `request`.
 */
export interface Operation {
  /** The operation's id in the vocabulary: `instances.create`. */
  id: string;
  /** The verified caller; undefined before sign-in (login, token exchange). */
  actor?: Pick<Actor, 'id' | 'email'>;
  /** `create`, `update`, `delete`, `member_add`, `login`, … */
  action: string;
  /** `projects`, `instances`, `secrets`, `accounts`, `license`, … */
  resource: string;
  /** The object acted on ('' when the operation names none). */
  name: string;
  project?: string;
  namespace?: string;
  /** The method's input. Secrets are in here: redact before storing. */
  input: unknown;
  /** Fields of `input` whose values are secret as a whole (a Secret's `data`), whatever their keys are called. */
  secretFields: readonly string[];
  request: RequestFacts;
}

/**
 * Wraps every mutating operation (the way procedure middleware wraps every procedure, whatever transport is in
 * front). It calls `run` at most once and answers with what `run` answered, or throws what it threw. Throwing
 * before `run` refuses the operation without performing it (an audit sink that is down: throw `unavailable`).
 */
export type OperationHook = <T>(operation: Operation, run: () => Promise<T>) => Promise<T>;
