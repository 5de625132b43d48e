import { PorticoApiError } from './errors.js';

export const abortedError = (reason?: unknown) =>
  new PorticoApiError({ status: 0, code: 'ABORTED', message: 'request aborted', cause: reason });

/** Waits `ms`, or rejects with an ABORTED error as soon as `signal` fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(signal.reason));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff with jitter: half the step fixed, half random, so clients that dropped together spread out. */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number, random = Math.random): number {
  const step = Math.min(maxMs, initialMs * 2 ** attempt);
  return Math.round(step / 2 + (random() * step) / 2);
}
