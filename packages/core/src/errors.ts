import { errorStatus, type ErrorCode } from '@portico/api';

/**
 * The one error family of Portico. Domain code throws these; the server maps them to the envelope in one
 * place (`code`, `message`, `details`), and anything else becomes a 500 with no internal message.
 */
export class PorticoError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown>;
  /** Seconds, for 429 and 503. */
  readonly retryAfter?: number;
  /** Extra response headers (e.g. rate-limit headers); never secret. */
  readonly headers?: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    opts: { retryAfter?: number; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'PorticoError';
    this.code = code;
    this.status = errorStatus[code];
    this.details = details;
    this.retryAfter = opts.retryAfter;
    this.headers = opts.headers;
  }
}

export const isPorticoError = (e: unknown): e is PorticoError => e instanceof PorticoError;

export const badRequest = (message: string, details: Record<string, unknown> = {}) => new PorticoError('BAD_REQUEST', message, details);
/** `fields` maps a JSON path (`spec.replicas`) to what is wrong with it. */
export const validationFailed = (fields: Record<string, string>, message = 'request validation failed') =>
  new PorticoError('VALIDATION_FAILED', message, { fields });
export const unauthorized = (message = 'authentication required') => new PorticoError('UNAUTHORIZED', message);
export const forbidden = (message = 'permission denied', details: Record<string, unknown> = {}) => new PorticoError('FORBIDDEN', message, details);
export const notFound = (resource: string, identifier: string) =>
  new PorticoError('NOT_FOUND', `${resource} "${identifier}" not found`, { resource, identifier });
export const conflict = (message: string, details: Record<string, unknown> = {}) => new PorticoError('CONFLICT', message, details);
export const unprocessable = (message: string, details: Record<string, unknown> = {}) => new PorticoError('UNPROCESSABLE', message, details);
export const licenseRequired = (feature: string) =>
  new PorticoError('LICENSE_REQUIRED', `${feature} requires Portico Enterprise`, { feature });
export const rateLimited = (retryAfter: number, headers: Record<string, string> = {}) =>
  new PorticoError('RATE_LIMIT_EXCEEDED', 'too many requests, retry later', {}, { retryAfter, headers });
export const unavailable = (component: string, retryAfter = 5, cause?: unknown) =>
  new PorticoError('SERVICE_UNAVAILABLE', `${component} is unavailable, retry later`, { component }, { retryAfter, cause });
