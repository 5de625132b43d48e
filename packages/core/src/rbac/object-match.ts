/**
 * `objectMatch(request, pattern)`: `*` in a policy object matches any run of characters, `/` included
 * (`instances/alpha/*` covers every instance of alpha). Everything else matches literally. A `*` in the
 * request is an ordinary character, so a project-wide question (`instances/alpha/*`) is only answered yes by a
 * pattern that covers the whole project.
 *
 * Compiled patterns are cached: the same few hundred patterns are tested on every decision.
 */
const cache = new Map<string, RegExp>();
const maxCached = 20_000;

function compile(pattern: string): RegExp {
  let re = cache.get(pattern);
  if (!re) {
    const body = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    re = new RegExp(`^${body}$`, 's');
    // Patterns come from project policies; a churn of projects could grow this without bound.
    if (cache.size >= maxCached) cache.clear();
    cache.set(pattern, re);
  }
  return re;
}

export function objectMatch(request: string, pattern: string): boolean {
  if (!pattern.includes('*')) return request === pattern;
  return compile(pattern).test(request);
}
