import type { IncomingMessage } from 'node:http';
import type { RouteDef } from '@portico/api';
import { badRequest } from '@portico/core';
import { hasBody, isJsonContentType, readBody } from './body.js';
import { assertSafeQueryKey, parseJsonBody } from './safe-json.js';
import { parseInput } from '@portico/core';

/** Path parameters as the route's schema should see them: percent-decoded, malformed encodings refused. */
export function decodeParams(raw: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      throw badRequest(`malformed percent-encoding in path parameter "${name}"`);
    }
  }
  return out;
}

/**
 * The query as strings. A repeated parameter is joined with commas: list parameters (`tags`) read that
 * naturally, and a scalar one (`page=1&page=2`) then fails validation instead of silently picking one.
 */
export function flattenQuery(query: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(query)) {
    assertSafeQueryKey(key);
    const value = query[key];
    if (value === undefined) continue;
    out[key] = Array.isArray(value) ? value.join(',') : value;
  }
  return out;
}

/**
 * The validated body of a route that declares one. Every body, on every route, must be JSON within the
 * 1 MiB limit and free of prototype keys; a route without a body schema then ignores it. An absent body
 * is validated as `{}` so the answer names the required fields. Answered at once when there is no body to read
 * (every GET), a promise otherwise.
 */
export function bodyFor(req: IncomingMessage, route: RouteDef): unknown {
  if (!hasBody(req)) return route.body ? parseInput(route.body, {}, 'body') : undefined;
  return readJson(req, route);
}

async function readJson(req: IncomingMessage, route: RouteDef): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) throw badRequest('Content-Type must be application/json');
  const text = await readBody(req);
  const value = text.trim() === '' ? {} : parseJsonBody(text);
  return route.body ? parseInput(route.body, value, 'body') : undefined;
}
