import type { IncomingMessage } from 'node:http';
import { PorticoError, badRequest } from '@portico/core';

/** Contract §1: 1 MiB on every route. */
const bodyLimitBytes = 1024 * 1024;

/**
 * After answering early (413, 401, 404 …) the rest of an upload is read and dropped so the client sees our
 * answer instead of a reset and the connection stays usable; past this much, or after this long, the
 * socket is destroyed rather than paying for an unbounded upload.
 */
const drainBudgetBytes = 8 * 1024 * 1024;
const drainTimeoutMs = 10_000;

const payloadTooLarge = () =>
  new PorticoError('PAYLOAD_TOO_LARGE', `request body exceeds ${bodyLimitBytes} bytes`, { limit: bodyLimitBytes });

export const hasBody = (req: IncomingMessage) => {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
};

/** Rejects by Content-Length before a byte is read. */
export function assertDeclaredLength(req: IncomingMessage, limit = bodyLimitBytes): void {
  const length = req.headers['content-length'];
  if (length === undefined) return;
  if (!/^\d+$/.test(length)) throw badRequest('invalid Content-Length');
  if (Number(length) > limit) throw payloadTooLarge();
}

export const isJsonContentType = (header: string | undefined) => {
  const type = (header ?? '').split(';')[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
};

/** Fatal: a byte sequence that is not UTF-8 is an error, not a U+FFFD silently stored in a project. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads the body as UTF-8 (400 when it is not valid UTF-8), counting bytes as they arrive and rejecting with 413 the moment the limit is
 * passed (nothing beyond it is buffered).
 */
export function readBody(req: IncomingMessage, limit = bodyLimitBytes): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        chunks.length = 0;
        reject(payloadTooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      try {
        resolve(utf8.decode(Buffer.concat(chunks, size)));
      } catch {
        reject(badRequest('request body is not valid UTF-8'));
      }
    };
    const onError = () => {
      cleanup();
      reject(badRequest('request body could not be read'));
    };
    const onAborted = () => {
      cleanup();
      reject(badRequest('request aborted'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

/**
 * Drops whatever is left of the request body after the response was decided, within a budget. Without
 * this, Node would drain an unbounded upload by itself after the response ends.
 */
const draining = new WeakSet<IncomingMessage>();

export function discardRemainingBody(req: IncomingMessage): void {
  if (req.complete || req.destroyed || draining.has(req)) return;
  draining.add(req);
  let dropped = 0;
  const timer = setTimeout(() => req.socket.destroy(), drainTimeoutMs);
  timer.unref();
  const stop = () => clearTimeout(timer);
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > drainBudgetBytes) {
      stop();
      req.socket.destroy();
    }
  });
  req.once('end', stop);
  req.once('close', stop);
  req.resume();
}
