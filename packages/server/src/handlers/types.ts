import type { routeById, RouteBody, RouteId, RouteParams, RouteQuery } from '@portico/api';
import type { Actor, Portico, RequestContext } from '@portico/core';
import type { Readable } from 'node:stream';
import type { z } from 'zod';

/** What a handler may change about the response besides its body. */
export interface Reply {
  /** Overrides the route's success status (readiness answers 503). */
  status(code: number): void;
  setHeader(name: string, value: string): void;
  /** Answers 302 with this Location. */
  redirect(location: string): void;
}

export type { RouteBody, RouteParams, RouteQuery } from '@portico/api';

/**
 * What a handler returns: its route's response schema's input; for a route without one, nothing (204, 302) or a
 * stream sent as it is (a body that is not JSON, such as an icon), with the headers the handler set.
 */
type RouteResult<K extends RouteId> = (typeof routeById)[K] extends { response: infer S extends z.ZodType } ? z.input<S> : void | Readable;

/** One call of a route: the input has already been validated with the route's schemas. */
export interface Call<K extends RouteId = RouteId> {
  portico: Portico;
  /** The verified caller; set on every `auth: 'user'` route (the only ones that read it). */
  actor: Actor;
  params: RouteParams<K>;
  query: RouteQuery<K>;
  body: RouteBody<K>;
  request: RequestContext;
  reply: Reply;
}

/** A handler returns the response body (or nothing for 204/302). */
export type Handler = (call: Call<never>) => unknown;

/**
 * A check of a route that depends on the route and the caller alone (an edition's license): it runs after
 * authentication and before the route's input is read, so it answers first (402 before a 400 about the body).
 * It refuses by throwing; it may set headers on the reply.
 */
export type RouteGate = (actor: Actor | undefined, reply: Reply) => void;

type Awaitable<T> = T | Promise<T>;

/** Handlers keyed by route id, each typed from its route's schemas: nothing about a route is spelt twice. */
type RouteHandlers = { [K in RouteId]?: (call: Call<K>) => Awaitable<RouteResult<K>> };

/** Declares handlers of the OSS route table; parameters, query, body and result types come from the table. */
export const routeHandlers = <T extends RouteHandlers>(handlers: T): T => handlers;

type RowSchema<R, Key extends 'params' | 'query' | 'body'> = R extends { [P in Key]: infer S extends z.ZodType } ? z.output<S> : undefined;

/** One call of a row of a plugin's own table (the Enterprise routes): typed from the row's schemas, like `Call`. */
export interface RowCall<R> extends Omit<Call<never>, 'params' | 'query' | 'body'> {
  params: RowSchema<R, 'params'>;
  query: RowSchema<R, 'query'>;
  body: RowSchema<R, 'body'>;
}

/** Handlers of a plugin's route table by id, each typed from its row (`Rows` is the union of the table's rows). */
export type TableHandlers<Rows extends { id: string }> = { [K in Rows['id']]?: (call: RowCall<Extract<Rows, { id: K }>>) => unknown };

/**
 * Declares handlers of a plugin's route table (`tableHandlers<typeof rows[number]>()({...})`): parameters,
 * query and body types come from the rows, so nothing about a route is spelt twice.
 */
export const tableHandlers =
  <Rows extends { id: string }>() =>
  <T extends TableHandlers<Rows>>(handlers: T): { readonly [K in keyof T]: Handler } =>
    handlers as unknown as { readonly [K in keyof T]: Handler };
