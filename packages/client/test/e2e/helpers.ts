import type { ServerMessage } from '@portico/api';
import { expect } from 'vitest';
import { PorticoApiError, type EventSubscription } from '@portico/client';

/**
 * Awaits a call that must fail and checks the failure is a `PorticoApiError` with the given status and code and a
 * request id (from the envelope or the header), as every server error of the contract carries one.
 */
export async function expectApiError(call: Promise<unknown>, status: number, code: string): Promise<PorticoApiError> {
  const error = await call.then(
    (value) => {
      throw new Error(`expected ${status} ${code}, got success: ${JSON.stringify(value)?.slice(0, 300)}`);
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PorticoApiError);
  const apiError = error as PorticoApiError;
  expect({ status: apiError.status, code: apiError.code }, apiError.message).toEqual({ status, code });
  expect(apiError.requestId).toMatch(/\S/);
  return apiError;
}

/** The next message of `sub` that satisfies `match`, or an error naming what was awaited after `timeoutMs`. */
export async function nextMatching<T extends ServerMessage>(
  sub: EventSubscription<ServerMessage> | EventSubscription,
  match: (m: ServerMessage) => m is T,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const seen: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${timeoutMs} ms; saw: ${seen.join(', ') || 'nothing'}`)), timeoutMs);
  });
  try {
    for (;;) {
      const next = await Promise.race([sub.next(), timeout]);
      if (next.done) throw new Error(`the event stream ended before ${what}; saw: ${seen.join(', ')}`);
      seen.push(next.value.type);
      if (match(next.value)) return next.value;
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `probe` until it returns a value other than undefined. */
export async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
