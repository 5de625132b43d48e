import { randomUUID } from 'node:crypto';

const saneRequestId = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The caller's `X-Request-ID` when it is safe to echo into headers and logs (≤ 128 characters of
 * `[A-Za-z0-9._-]`), otherwise a fresh UUID: a hostile value must never reach a log line or a header.
 */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && saneRequestId.test(value) ? value : randomUUID();
}
