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

/**
 * Runs `fn` so that the operations it calls are recorded each as itself again, with the request's facts: for an
 * operation made of others that the caller could also run one by one (a project's cascade deletes its instances
 * through the instances service, and each deletion is recorded as it would be on its own).
 */
export const asSeparateOperations = <T>(fn: () => T): T => {
  const scope = scopes.getStore();
  return scope?.inOperation ? scopes.run({ facts: scope.facts, inOperation: false }, fn) : fn();
};
