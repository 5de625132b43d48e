/**
 * Paths of the route table (`/api/v1/rgds/{name}`) as matchers, and the order in which they are tried. The
 * router runs the first entry whose pattern matches, so a static segment must come before a parameter that
 * would also match it (`/rgds/count` before `/rgds/{name}`).
 */

export interface PathMatcher {
  method: string;
  path: string;
  /** Parameter values by name (still URI-encoded) when `pathname` matches, otherwise undefined. */
  match(pathname: string): Record<string, string> | undefined;
}

const segments = (path: string) => path.split('/').filter(Boolean);
export const isParamSegment = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

/**
 * The semantics of polka's own router (regexparam), which Portico no longer uses for dispatch: one segment per
 * parameter, an optional trailing slash, case-insensitive. Dispatch, parameters and the `Allow` header all
 * come from this one matcher.
 */
export function compilePath(method: string, path: string): PathMatcher {
  const names: string[] = [];
  const source = segments(path)
    .map((segment) => {
      if (!isParamSegment(segment)) return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
      names.push(segment.slice(1, -1));
      return '/([^/]+?)';
    })
    .join('');
  const pattern = new RegExp(`^${source || ''}/?$`, 'i');
  return {
    method,
    path,
    match(pathname) {
      const m = pattern.exec(pathname);
      if (!m) return undefined;
      return Object.fromEntries(names.map((name, i) => [name, m[i + 1]]));
    },
  };
}

/**
 * Sorts routes by the kinds of their segments (static before parameter, left to right). Two paths can only
 * both match a request when their static segments agree, so at the first segment where their kinds differ
 * the static one wins; for paths that can never collide the order does not matter. The sort is stable, so
 * the table's own order is kept otherwise.
 */
export function orderRoutes<T extends { path: string }>(list: readonly T[]): T[] {
  const kinds = (path: string) => segments(path).map((s) => (isParamSegment(s) ? 1 : 0));
  const compare = (a: T, b: T) => {
    const ka = kinds(a.path);
    const kb = kinds(b.path);
    for (let i = 0; i < Math.min(ka.length, kb.length); i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
    return ka.length - kb.length;
  };
  return [...list].sort(compare);
}

/** The methods any matcher accepts for `pathname`, in a fixed order, for the `Allow` header. */
export function allowedMethods(matchers: readonly PathMatcher[], pathname: string): string[] {
  const order = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  const found = new Set(matchers.filter((m) => m.match(pathname)).map((m) => m.method));
  return order.filter((m) => found.has(m));
}
