import type { ServerResponse } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { jsonBytes, jsonText } from '@portico/core';

/** JSON texts shorter than this are written as text; longer ones as bytes (a shared value's, encoded once). */
const LARGE_TEXT = 4096;

/**
 * The body to write: a small answer (a count, can-i, an error) as its text, which Node sends in one buffer with the
 * head rather than encoding it apart and writing head and body as two; a large one as bytes, a frozen value's
 * encoded once and kept with it.
 */
function payloadOf(body: unknown): string | Buffer {
  const text = jsonText(body);
  if (text.length < LARGE_TEXT) return text;
  return body !== null && typeof body === 'object' && Object.isFrozen(body) ? jsonBytes(body) : Buffer.from(text, 'utf8');
}

/**
 * Writes a JSON body, with the text core serialised (and, when large, encoded) once when the value carries one. API
 * answers are per caller and may hold tokens, so no cache may keep them.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = payloadOf(body);
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', typeof payload === 'string' ? Buffer.byteLength(payload, 'utf8') : payload.length);
  res.end(payload);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Cache-Control', 'no-store');
  res.end();
}

/**
 * Streams a body of any size (an export): back-pressure from the client reaches the source, and a client
 * that goes away stops the source. A source that fails after the head was sent can only cut the response
 * short; the client sees a truncated transfer, never a body that looks complete.
 */
export function sendStream(res: ServerResponse, status: number, body: Readable, headers: Record<string, string> = {}): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  // Unless the handler says otherwise: a public icon is the same for everyone and may be cached.
  if (headers['Cache-Control'] === undefined) res.setHeader('Cache-Control', 'no-store');
  pipeline(body, res, (error) => {
    if (error) res.destroy(error);
  });
}
