import type { Actor, Portico, RequestContext } from '@portico/core';

/** What a handler may change about the response besides its body. */
export interface Reply {
  /** Overrides the route's success status (readiness answers 503). */
  status(code: number): void;
  setHeader(name: string, value: string): void;
  /** Answers 302 with this Location. */
  redirect(location: string): void;
}

/** The shape of a route's validated input, spelled with the @portico/api types of its schemas. */
export interface InputShape {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

/** One call of a route: the input has already been validated with the route's schemas. */
export interface Call<In extends InputShape = InputShape> {
  portico: Portico;
  /** The verified caller; set on every `auth: 'user'` route (the only ones that read it). */
  actor: Actor;
  params: In['params'];
  query: In['query'];
  body: In['body'];
  request: RequestContext;
  reply: Reply;
}

/** A handler returns the response body (or nothing for 204/302). */
export type Handler = (call: Call) => unknown;

/**
 * Declares a handler with the types of its route's schemas. The route table is typed as plain `RouteDef`s
 * (its literal types are widened by its `r()` helper), so the input types are named here rather than
 * inferred; the values themselves always come from the route's own schemas.
 */
export const handler = <In extends InputShape = InputShape>(fn: (call: Call<In>) => unknown): Handler => fn as Handler;
