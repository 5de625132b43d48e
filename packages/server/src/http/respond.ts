import type { ServerResponse } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { jsonBytes } from '@portico/core';

/**
 * Writes a JSON body, with the text core serialised (and, when large, encoded) once when the value carries one. API
 * answers are per caller and may hold tokens, so no cache may keep them.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = jsonBytes(body);
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', payload.length);
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
  res.setHeader('Cache-Control', 'no-store');
  pipeline(body, res, (error) => {
    if (error) res.destroy(error);
  });
}
