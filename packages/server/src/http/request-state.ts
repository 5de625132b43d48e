import type { IncomingMessage } from 'node:http';
import type { Logger } from '@portico/core';

/** What the pipeline learned about a request before routing; read by handlers and the error mapper. */
export interface RequestState {
  requestId: string;
  log: Logger;
  ip: string;
  secure: boolean;
  /** The route table id once a route took the request (a bounded metrics label, never the path). */
  routeId?: string;
  /** The dependency named by a 503 answer (`details.component`), for the dependency-error metric. */
  unavailable?: string;
}

/**
 * Kept on the request under a symbol of this module, which nothing else can name: a WeakMap entry per request
 * made every garbage collection walk a table of short-lived keys.
 */
const STATE = Symbol('portico.requestState');

type WithState = IncomingMessage & { [STATE]?: RequestState };

export const setRequestState = (req: IncomingMessage, state: RequestState) => void ((req as WithState)[STATE] = state);

/** The state when the request-context middleware ran, undefined otherwise (a request that never got one). */
export const findRequestState = (req: IncomingMessage): RequestState | undefined => (req as WithState)[STATE];

export function requestState(req: IncomingMessage): RequestState {
  const state = (req as WithState)[STATE];
  if (!state) throw new Error('request state missing: the request-context middleware did not run');
  return state;
}
