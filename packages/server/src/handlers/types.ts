import type { routeById, RouteBody, RouteId, RouteParams, RouteQuery } from '@portico/api';
import type { Actor, Portico, RequestContext } from '@portico/core';
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

/** What a handler returns: its route's response schema's input (undefined for 204 and 302). */
export type RouteResult<K extends RouteId> = (typeof routeById)[K] extends { response: infer S extends z.ZodType } ? z.input<S> : void;

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

type Awaitable<T> = T | Promise<T>;

/** Handlers keyed by route id, each typed from its route's schemas: nothing about a route is spelt twice. */
export type RouteHandlers = { [K in RouteId]?: (call: Call<K>) => Awaitable<RouteResult<K>> };

/** Declares handlers of the OSS route table; parameters, query, body and result types come from the table. */
export const routeHandlers = <T extends RouteHandlers>(handlers: T): T => handlers;

/** The input of a route of a plugin's own table, its types named by the plugin (its rows are not in `RouteId`). */
export interface PluginInput {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

/** One call of a plugin's route: like `Call`, with the input types the plugin names. */
export interface PluginCall<In extends PluginInput = PluginInput> extends Omit<Call<never>, 'params' | 'query' | 'body'> {
  params: In['params'];
  query: In['query'];
  body: In['body'];
}

/** Declares a handler of a plugin's route table (the Enterprise routes); the values come from its row's schemas. */
export const pluginHandler = <In extends PluginInput = PluginInput>(fn: (call: PluginCall<In>) => unknown): Handler => fn as Handler;
