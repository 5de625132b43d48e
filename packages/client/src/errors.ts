import { ErrorEnvelope, errorStatus, type ErrorCode, type wsErrorCodes } from '@portico/api';

/** Codes the SDK itself produces, besides the server's codes of the contract. */
export type ClientErrorCode = 'NETWORK_ERROR' | 'TIMEOUT' | 'ABORTED' | 'INVALID_RESPONSE' | 'SSO_FAILED';

/**
 * Every code a `PorticoApiError` can carry: the server's (from the api package's error table and its WebSocket
 * error frames), the SDK's own, and `HTTP_<status>` when something other than Portico answered (a proxy page).
 * A `switch` over it is checked by the compiler.
 */
export type PorticoErrorCode = ErrorCode | (typeof wsErrorCodes)[number] | ClientErrorCode | `HTTP_${number}`;

export interface PorticoApiErrorInit {
  status: number;
  code: PorticoErrorCode;
  message: string;
  details?: Record<string, unknown>;
  requestId?: string;
  /** Seconds the server asked to wait (429, 503). */
  retryAfter?: number;
  cause?: unknown;
}

/**
 * Every failure of an SDK call: a server error envelope, a transport failure (`status` 0 with
 * `NETWORK_ERROR`, `TIMEOUT` or `ABORTED`) or a response that does not match the contract (`INVALID_RESPONSE`).
 */
export class PorticoApiError extends Error {
  readonly status: number;
  readonly code: PorticoErrorCode;
  readonly details: Record<string, unknown>;
  readonly requestId?: string;
  readonly retryAfter?: number;

  constructor(init: PorticoApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'PorticoApiError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? {};
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}

export const isPorticoApiError = (e: unknown): e is PorticoApiError => e instanceof PorticoApiError;

/**
 * Codes that say what Portico was doing, not just what the status means: only an envelope can carry them.
 * A bare 502 from a proxy is not a Git remote refusing a push.
 */
const domainCodes: ReadonlySet<ErrorCode> = new Set(['DEPLOYMENT_MODE_NOT_ALLOWED', 'GITOPS_ERROR']);
const codeByStatus = new Map<number, ErrorCode>();
for (const [code, status] of Object.entries(errorStatus) as [ErrorCode, number][]) {
  if (!domainCodes.has(code) && !codeByStatus.has(status)) codeByStatus.set(status, code);
}

/** `Retry-After` as seconds: a number of seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** Turns a non-2xx response (with its body text) into a PorticoApiError, reading the envelope when there is one. */
export function errorFromResponse(res: Response, text: string): PorticoApiError {
  const headerRequestId = res.headers.get('x-request-id') ?? undefined;
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
  let envelope: ErrorEnvelope | undefined;
  try {
    const parsed = ErrorEnvelope.safeParse(JSON.parse(text));
    if (parsed.success) envelope = parsed.data;
  } catch {
    // not JSON: a proxy or load balancer answered, not Portico
  }
  if (envelope) {
    return new PorticoApiError({
      status: res.status,
      // The server only sends codes of its table; an unknown one still reaches the caller as it came.
      code: envelope.code as PorticoErrorCode,
      message: envelope.message,
      details: envelope.details,
      requestId: envelope.requestId ?? headerRequestId,
      retryAfter,
    });
  }
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return new PorticoApiError({
    status: res.status,
    code: codeByStatus.get(res.status) ?? `HTTP_${res.status}`,
    message: `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${snippet ? `: ${snippet}` : ''}`,
    requestId: headerRequestId,
    retryAfter,
  });
}
