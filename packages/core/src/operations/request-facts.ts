import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequestFacts } from './operation.js';

interface Scope {
  facts: RequestFacts;
  /** Set once an operation runs in this scope: an operation that calls another is recorded once, as itself. */
  inOperation: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

/**
 * Runs `fn` with the facts of the request it serves, for the operations it calls. Only the transport calls
 * this (once per mutating request); core's methods take no transport argument.
 */
export const withRequestFacts = <T>(facts: RequestFacts, fn: () => T): T => scopes.run({ facts, inOperation: false }, fn);

export const currentScope = (): Scope | undefined => scopes.getStore();

/** Runs `fn` marked as inside an operation (a fresh scope keeps the request facts). */
export const insideOperation = <T>(facts: RequestFacts, fn: () => T): T => scopes.run({ facts, inOperation: true }, fn);
