/**
 * `objectMatch(request, pattern)`: `*` in a policy object matches any run of characters, `/` included
 * (`instances/alpha/*` covers every instance of alpha). Everything else matches literally. A `*` in the
 * request is an ordinary character, so a project-wide question (`instances/alpha/*`) is only answered yes by a
 * pattern that covers the whole project.
 *
 * Compiled patterns are cached: the same few hundred patterns are tested on every decision.
 */
const maxCached = 20_000;

/** A cache of compiled patterns: `*` becomes `wildcard`; patterns come from project policies, so it is bounded. */
function patternCache(wildcard: string, tail: string): (pattern: string) => RegExp {
  const cache = new Map<string, RegExp>();
  return (pattern) => {
    let re = cache.get(pattern);
    if (!re) {
      const body = pattern
        .split('*')
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join(wildcard);
      re = new RegExp(`^${body}${tail}$`, 's');
      if (cache.size >= maxCached) cache.clear();
      cache.set(pattern, re);
    }
    return re;
  };
}

const compile = patternCache('.*', '');

export function objectMatch(request: string, pattern: string): boolean {
  if (!pattern.includes('*')) return request === pattern;
  return compile(pattern).test(request);
}

const compileScope = patternCache('[^/]*', '(/.*)?');

/**
 * `scopeMatch(request, scope)`: `*` allows every request; otherwise the scope is an object prefix whose `*`
 * stays within one path segment (`instances/alpha/*` + `team-*`): the request must be that prefix or lie below it.
 * A project-wide question (`instances/alpha/*`) therefore falls in a scope only when its pattern is `*`.
 */
export function scopeMatch(request: string, scope: string): boolean {
  return scope === '*' || compileScope(scope).test(request);
}
