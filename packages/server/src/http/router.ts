import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteDef } from '@portico/api';
import { setBounded } from '@portico/core';
import type { Handler, RouteGate } from '../handlers/types.js';
import { isParamSegment, orderRoutes } from './route-paths.js';

/**
 * A route table and its handlers, keyed by route id. The OSS server is one (`@portico/api`'s routes with
 * `handlers/`); an Enterprise module passes its own to `createServer({ routeTables })`, built the same way.
 * A row marked `enterprise` with a handler in some table is served; one without is answered by the edition gate.
 */
export interface RouteTable {
  routes: readonly RouteDef[];
  handlers: Readonly<Record<string, Handler>>;
  /** Checks by route id that run before the route's input is read (see RouteGate). */
  gates?: Readonly<Record<string, RouteGate>>;
}

/** What runs for a matched path: raw (still URI-encoded) parameter values by name. */
type Endpoint = (req: IncomingMessage & { path: string }, res: ServerResponse, params: Readonly<Record<string, string>>) => unknown;

export interface RouterEntry {
  method: string;
  path: string;
  endpoint: Endpoint;
}

/** A matched path: its endpoint and raw parameters (frozen: one answer may serve many requests). */
interface Hit {
  endpoint: Endpoint;
  params: Readonly<Record<string, string>>;
}

/** Paths remembered per method, and the longest remembered: a few hundred KB at most, whatever callers send. */
const REMEMBERED_PATHS = 1024;
const REMEMBERED_PATH_LENGTH = 512;

interface Router {
  /** The first entry, in static-before-parameter order, whose method and path match; HEAD is answered as GET. */
  find(method: string, pathname: string): Hit | undefined;
  /** The methods the template `pathname` names accepts (as `find` picks it), for 405's `Allow` header. */
  allowed(pathname: string): string[];
}

/** The one matcher of the server: every route of every table is compiled once, here, and dispatched from here. */
export function createRouter(entries: readonly RouterEntry[]): Router {
  const root = createNode();
  for (const entry of orderRoutes(entries)) insert(root, entry);
  /**
   * The path a request names is the first template, static before parameter, that matches it, whatever the
   * method: `/instances/count` is the count, so POST there is 405, never a create of a kind called "count".
   * Found by walking the path's segments down a tree of templates (O(segments), not a pattern per route).
   */
  const sameTemplate = (segments: readonly string[] | undefined): readonly Compiled[] => {
    const found = segments && lookup(root, segments, 0);
    if (!found) return [];
    const first = found.entries[0]!.entry.path;
    return found.entries.every((c) => c.entry.path === first) ? found.entries : found.entries.filter((c) => c.entry.path === first);
  };
  const match = (method: string, pathname: string): Hit | undefined => {
    const segments = segmentsOf(pathname);
    for (const { entry, names } of sameTemplate(segments)) {
      if (entry.method !== method && !(method === 'HEAD' && entry.method === 'GET')) continue;
      return Object.freeze({ endpoint: entry.endpoint, params: Object.freeze(paramsOf(names, segments!)) });
    }
    return undefined;
  };
  // What a path matched is a function of method and path alone: a client asking the same URL again (polling,
  // can-i, a list) is not walked down the tree again. Bounded, oldest out first; misses are not kept.
  const rememberedByMethod = new Map<string, Map<string, Hit>>();
  return {
    find(method, pathname) {
      if (pathname.length > REMEMBERED_PATH_LENGTH) return match(method, pathname);
      let remembered = rememberedByMethod.get(method);
      if (!remembered) rememberedByMethod.set(method, (remembered = new Map()));
      const known = remembered.get(pathname);
      if (known) return known;
      const hit = match(method, pathname);
      return hit && setBounded(remembered, REMEMBERED_PATHS, pathname, hit);
    },
    allowed(pathname) {
      const found = new Set(sameTemplate(segmentsOf(pathname)).map((c) => c.entry.method));
      return allowOrder.filter((m) => found.has(m));
    },
  };
}

/** The order of methods in an `Allow` header. */
const allowOrder = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

interface Compiled {
  entry: RouterEntry;
  /** Parameter name by segment position (undefined for a static segment). */
  names: (string | undefined)[];
}

interface Node {
  /** Static segments, lower-cased (matching is case-insensitive, as polka's was). */
  literal: Map<string, Node>;
  param?: Node;
  /** Templates ending here, in dispatch order. */
  entries: Compiled[];
}

const createNode = (): Node => ({ literal: new Map(), entries: [] });

function insert(root: Node, entry: RouterEntry): void {
  const names: (string | undefined)[] = [];
  let node = root;
  for (const segment of entry.path.split('/').filter(Boolean)) {
    if (isParamSegment(segment)) {
      names.push(segment.slice(1, -1));
      node = node.param ??= createNode();
    } else {
      names.push(undefined);
      const key = segment.toLowerCase();
      let next = node.literal.get(key);
      if (!next) node.literal.set(key, (next = createNode()));
      node = next;
    }
  }
  node.entries.push({ entry, names });
}

/** The first node, static before parameter at each segment, where some template ends. */
function lookup(node: Node, segments: readonly string[], at: number): Node | undefined {
  if (at === segments.length) return node.entries.length > 0 ? node : undefined;
  const segment = segments[at]!;
  // Templates are ASCII; a case-insensitive match of anything else never meets a static segment.
  const next = asciiOnly.test(segment) ? node.literal.get(segment.toLowerCase()) : undefined;
  return (next && lookup(next, segments, at + 1)) || (node.param && lookup(node.param, segments, at + 1));
}

const asciiOnly = /^[\x00-\x7f]*$/;

/** The non-empty segments of a path with at most one trailing slash; undefined when one is empty (`//`). */
function segmentsOf(pathname: string): string[] | undefined {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  if (path === '' || path === '/') return [];
  if (path[0] !== '/') return undefined;
  const segments = path.slice(1).split('/');
  return segments.includes('') ? undefined : segments;
}

function paramsOf(names: readonly (string | undefined)[], segments: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) if (names[i] !== undefined) params[names[i]!] = segments[i]!;
  return params;
}

/** Every table's routes together, and one handler map; two tables may not claim one id. */
export function mergeTables(tables: readonly RouteTable[]): RouteTable {
  const routes: RouteDef[] = [];
  const handlers: Record<string, Handler> = {};
  const gates: Record<string, RouteGate> = {};
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
    Object.assign(gates, table.gates);
  }
  return { routes, handlers, gates };
}
