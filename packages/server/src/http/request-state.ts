import type { IncomingMessage } from 'node:http';
import type { Logger } from '@portico/core';

/** What the pipeline learned about a request before routing; read by handlers and the error mapper. */
export interface RequestState {
  requestId: string;
  log: Logger;
  ip: string;
  secure: boolean;
}

const states = new WeakMap<IncomingMessage, RequestState>();

export const setRequestState = (req: IncomingMessage, state: RequestState) => void states.set(req, state);

export function requestState(req: IncomingMessage): RequestState {
  const state = states.get(req);
  if (!state) throw new Error('request state missing: the request-context middleware did not run');
  return state;
}
