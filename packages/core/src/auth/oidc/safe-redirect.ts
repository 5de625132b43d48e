import { badRequest } from '../../errors.js';

const MAX_REDIRECT_LENGTH = 2048;
// Control characters (CR/LF among them), whitespace and backslashes: browsers "fix" some of these into a
// different target than the one checked, so none of them is accepted anywhere in a redirect.
const UNSAFE = /[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff\\]/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
const PLACEHOLDER = 'http://relative.invalid';

const DEFAULT_REDIRECT = '/';

const refused = () =>
  badRequest('redirect must be a relative path or an allowed origin', { parameter: 'redirect' });

const originOf = (value: string): string | undefined => {
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
};

/**
 * Where the browser may be sent back to after sign-in: a relative path starting with a single `/` (not `//`
 * nor `/\`, which browsers read as another host), an absolute http(s) URL whose origin is in
 * `allowedOrigins`, or `http://127.0.0.1:<port>/…` / `http://localhost:<port>/…` (the CLI's sign-in listener).
 * Anything else is an open redirect: 400.
 */
export function validateRedirect(redirect: string | undefined, allowedOrigins: readonly string[]): string {
  if (redirect === undefined || redirect === '') return DEFAULT_REDIRECT;
  if (typeof redirect !== 'string' || redirect.length > MAX_REDIRECT_LENGTH || UNSAFE.test(redirect)) throw refused();

  if (redirect.startsWith('/')) {
    if (redirect.startsWith('//')) throw refused();
    // What a browser would make of it must stay on our origin, also after dot segments are resolved
    // (`/.//evil.example` normalises to `//evil.example`): the normalised form is what we keep.
    const resolved = new URL(redirect, PLACEHOLDER);
    const normalised = `${resolved.pathname}${resolved.search}${resolved.hash}`;
    if (resolved.origin !== PLACEHOLDER || normalised.startsWith('//')) throw refused();
    return normalised;
  }

  let url: URL;
  try {
    url = new URL(redirect);
  } catch {
    throw refused();
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refused();
  if (url.username || url.password) throw refused();
  const allowed = new Set(allowedOrigins.map(originOf).filter((o): o is string => o !== undefined && o !== 'null'));
  if (allowed.has(url.origin)) return url.href;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) && url.port !== '') return url.href;
  throw refused();
}

/**
 * `redirect` (already validated) with `params` added to its query, before any fragment. Relative redirects
 * stay relative. The values are ours (a random code, a fixed error code), never request input.
 */
export function withParams(redirect: string, params: Record<string, string>): string {
  const relative = redirect.startsWith('/');
  const url = new URL(redirect, PLACEHOLDER);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const location = relative ? `${url.pathname}${url.search}${url.hash}` : url.href;
  // Cannot happen after validation and URL serialisation; a Location header is not the place to find out.
  if (/[\u0000-\u001f\u007f]/.test(location) || (relative && location.startsWith('//'))) throw refused();
  return location;
}
