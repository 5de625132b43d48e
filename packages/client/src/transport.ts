import { routeById, type RouteDef, type RouteId, type RouteResponse } from '@portico/api';
import { enterpriseRoutes, type AuditRouteRow, type ComplianceHistoryRouteRow, type ComplianceRouteRow } from '@portico/api/enterprise';
import type { z } from 'zod';
import { PorticoApiError, errorFromResponse } from './errors.js';
import type { CallOptions, ClientOptions } from './options.js';
import { buildPath, buildQuery, trimBase, type QueryValue } from './paths.js';
import { abortedError, backoffDelay, sleep } from './sleep.js';


export interface RouteInput {
  params?: Record<string, string>;
  query?: Record<string, QueryValue>;
  body?: unknown;
}

/**
 * Calls a route of the contract by its id; the answer is checked against the route's response schema at run
 * time, and its type is that schema's, derived from the route table.
 */
export interface Transport {
  <K extends RouteId>(id: K, input?: RouteInput, opts?: CallOptions): Promise<RouteResponse<K>>;
  /** A route of the Enterprise tables (`@portico/api/enterprise`), typed from its row the same way. */
  <K extends EnterpriseRow['id']>(id: K, input?: RouteInput, opts?: CallOptions): Promise<EnterpriseResponse<K>>;
}

type EnterpriseRow = (typeof enterpriseRoutes)[number] | AuditRouteRow | ComplianceRouteRow | ComplianceHistoryRouteRow;
type EnterpriseResponse<K extends EnterpriseRow['id']> =
  Extract<EnterpriseRow, { id: K }> extends { response: infer S extends z.ZodType } ? z.output<S> : void;

const routesById: Record<string, RouteDef | undefined> = {
  ...(routeById as unknown as Record<string, RouteDef>),
  ...Object.fromEntries(enterpriseRoutes.map((route) => [route.id, route])),
};

const idempotentMethods = new Set(['GET', 'HEAD', 'PUT', 'DELETE']);
const retryableStatuses = new Set([429, 503]);

const defaults = { timeoutMs: 30_000, retries: 2, maxDelayMs: 10_000 } as const;

/** One request function over the route table: paths, auth, timeouts, retries, error envelopes and response schemas. */
export function createTransport(options: ClientOptions): Transport {
  const base = trimBase(options.baseUrl);
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const retries = options.retry?.retries ?? defaults.retries;
  const maxDelayMs = options.retry?.maxDelayMs ?? defaults.maxDelayMs;

  const authorization = async (): Promise<string | undefined> => {
    const token = (await options.getToken?.()) ?? options.token;
    return token ? `Bearer ${token}` : undefined;
  };

  return async function call(id: string, input: RouteInput = {}, opts: CallOptions = {}): Promise<any> {
    const route = routesById[id];
    if (!route) throw new TypeError(`unknown route "${id}"`);
    const path = buildPath(route.path, input.params);
    const url = `${base}${path}${buildQuery(input.query)}`;
    const what = `${route.method} ${path}`;
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers, ...opts.headers };
    if (route.auth === 'user') {
      const auth = await authorization();
      if (auth) headers.authorization = auth;
    }
    let body: string | undefined;
    if (input.body !== undefined) {
      body = JSON.stringify(input.body);
      headers['content-type'] = 'application/json';
    }
    const mayRetry = idempotentMethods.has(route.method) || options.retry?.retryNonIdempotent === true;
    const timeoutMs = opts.timeoutMs ?? options.timeoutMs ?? defaults.timeoutMs;

    for (let attempt = 0; ; attempt++) {
      const { res, text } = await attemptOnce(url, { method: route.method, headers, body }, what, timeoutMs, opts.signal);
      if (res.ok) return parseBody(route, what, res, text);
      const error = errorFromResponse(res, text);
      if (!mayRetry || attempt >= retries || !retryableStatuses.has(res.status)) throw error;
      const wantedMs = error.retryAfter !== undefined ? error.retryAfter * 1000 : backoffDelay(attempt, 250, maxDelayMs);
      await sleep(Math.min(wantedMs, maxDelayMs), opts.signal);
    }
  };

  async function attemptOnce(
    url: string,
    init: { method: string; headers: Record<string, string>; body?: string },
    what: string,
    timeoutMs: number,
    callerSignal?: AbortSignal,
  ): Promise<{ res: Response; text: string }> {
    if (callerSignal?.aborted) throw abortedError(callerSignal.reason);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    const requestInit: RequestInit & { dispatcher?: unknown } = { ...init, signal };
    if (options.dispatcher !== undefined) requestInit.dispatcher = options.dispatcher;
    try {
      // The body is read under the same signal, so a server that stalls mid-body also times out.
      const res = await fetchImpl(url, requestInit);
      const text = res.status === 204 ? '' : await res.text();
      return { res, text };
    } catch (e) {
      if (callerSignal?.aborted) throw abortedError(callerSignal.reason);
      if (timeout.aborted) {
        throw new PorticoApiError({ status: 0, code: 'TIMEOUT', message: `${what} timed out after ${timeoutMs} ms`, cause: e });
      }
      const cause = (e as { cause?: { message?: string; code?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (e as Error).message;
      throw new PorticoApiError({
        status: 0,
        code: 'NETWORK_ERROR',
        message: `cannot reach ${new URL(url).origin} (${reason})`,
        cause: e,
      });
    }
  }
}

function parseBody(route: RouteDef, what: string, res: Response, text: string): unknown {
  const schema: z.ZodType | undefined = route.response;
  if (!schema) return undefined;
  const requestId = res.headers.get('x-request-id') ?? undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PorticoApiError({
      status: res.status,
      code: 'INVALID_RESPONSE',
      message: `${route.id} (${what}): the response is not JSON`,
      details: { route: route.id },
      requestId,
    });
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  throw new PorticoApiError({
    status: res.status,
    code: 'INVALID_RESPONSE',
    message: `${route.id} (${what}): the response does not match the contract: ${issues.slice(0, 5).join('; ')}`,
    details: { route: route.id, issues },
    requestId,
  });
}
