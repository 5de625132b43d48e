/**
 * The order in which the route table's paths (`/api/v1/rgds/{name}`) are tried. The router (router.ts, the one
 * matcher of the server) runs the first template that matches, so a static segment must come before a parameter
 * that would also match it (`/rgds/count` before `/rgds/{name}`).
 */

const segments = (path: string) => path.split('/').filter(Boolean);
export const isParamSegment = (segment: string) => segment.startsWith('{') && segment.endsWith('}');

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
