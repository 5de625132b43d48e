import { routes, type RouteId } from '@portico/api';

interface Matcher {
  id: RouteId;
  method: string;
  pattern: RegExp;
  /** Literal segments: `/api/v1/rgds/count` must be countRgds, not getRgd with name "count". */
  literals: number;
}

const matchers: Matcher[] = routes
  .map((r) => {
    const segments = r.path.split('/').filter(Boolean);
    const source = segments.map((s) => (/^\{\w+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
    return { id: r.id, method: r.method, pattern: new RegExp(`^/${source}$`), literals: segments.filter((s) => !s.startsWith('{')).length };
  })
  .sort((a, b) => b.literals - a.literals);

/** The route of the contract a request went to, by method and path; undefined for anything else (e.g. `/ws`). */
export function routeIdOf(method: string, url: string): RouteId | undefined {
  const { pathname } = new URL(url);
  return matchers.find((m) => m.method === method.toUpperCase() && m.pattern.test(pathname))?.id;
}

/**
 * A `fetch` for `createClient({fetch})` that notes the route id of every request the SDK sends, so a test can
 * prove the suite went through every route of the table.
 */
export function recordingFetch(seen: Set<string>, inner: typeof fetch = globalThis.fetch.bind(globalThis)): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const id = routeIdOf(init?.method ?? (input instanceof Request ? input.method : 'GET'), url);
    if (id) seen.add(id);
    return inner(input, init);
  };
}

/** Route ids of the contract that `seen` lacks, in table order. */
export const uncoveredRoutes = (seen: ReadonlySet<string>): RouteId[] => routes.map((r) => r.id).filter((id) => !seen.has(id));
