import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteDef } from '@portico/api';
import type { Handler } from '../handlers/types.js';
import { allowedMethods, compilePath, orderRoutes } from './route-paths.js';

/**
 * A route table and its handlers, keyed by route id. The OSS server is one (`@portico/api`'s routes with
 * `handlers/`); an Enterprise module passes its own to `createServer({ routeTables })`, built the same way.
 * A row marked `enterprise` with a handler in some table is served; one without is answered by the edition gate.
 */
export interface RouteTable {
  routes: readonly RouteDef[];
  handlers: Readonly<Record<string, Handler>>;
}

/** What runs for a matched path: raw (still URI-encoded) parameter values by name. */
export type Endpoint = (req: IncomingMessage & { path: string }, res: ServerResponse, params: Record<string, string>) => unknown;

export interface RouterEntry {
  method: string;
  path: string;
  endpoint: Endpoint;
}

export interface Router {
  /** The first entry, in static-before-parameter order, whose method and path match; HEAD is answered as GET. */
  find(method: string, pathname: string): { endpoint: Endpoint; params: Record<string, string> } | undefined;
  /** The methods any entry accepts for `pathname`, for 405's `Allow` header. */
  allowed(pathname: string): string[];
}

/** The one matcher of the server: every route of every table is compiled once, here, and dispatched from here. */
export function createRouter(entries: readonly RouterEntry[]): Router {
  const compiled = orderRoutes(entries).map((entry) => ({ entry, matcher: compilePath(entry.method, entry.path) }));
  /**
   * The path a request names is the first template, static before parameter, that matches it, whatever the
   * method: `/instances/count` is the count, so POST there is 405, never a create of a kind called "count".
   */
  const sameTemplate = (pathname: string) => {
    const first = compiled.find((c) => c.matcher.match(pathname));
    return first ? compiled.filter((c) => c.entry.path === first.entry.path) : [];
  };
  return {
    find(method, pathname) {
      for (const { entry, matcher } of sameTemplate(pathname)) {
        if (entry.method !== method && !(method === 'HEAD' && entry.method === 'GET')) continue;
        return { endpoint: entry.endpoint, params: matcher.match(pathname)! };
      }
      return undefined;
    },
    allowed: (pathname) => allowedMethods(sameTemplate(pathname).map((c) => c.matcher), pathname),
  };
}

/** Every table's routes together, and one handler map; two tables may not claim one id. */
export function mergeTables(tables: readonly RouteTable[]): RouteTable {
  const routes: RouteDef[] = [];
  const handlers: Record<string, Handler> = {};
  const ids = new Set<string>();
  for (const table of tables) {
    for (const route of table.routes) {
      if (ids.has(route.id)) throw new Error(`route "${route.id}" is defined by two route tables`);
      ids.add(route.id);
      routes.push(route);
    }
    for (const [id, handler] of Object.entries(table.handlers)) {
      if (handlers[id]) throw new Error(`route "${id}" has a handler in two route tables`);
      handlers[id] = handler;
    }
  }
  return { routes, handlers };
}
