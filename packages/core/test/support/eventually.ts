/**
 * Polls `read` until `ok` holds for what it returns, and returns that value. A read that throws counts as "not
 * yet" (an API that is down, a connection being re-established). Fails with `what`, and the last value or error
 * seen, once `timeoutMs` has passed: a wait never passes by running out of time.
 */
export async function eventually<T>(
  read: () => T | Promise<T>,
  ok: (value: T) => boolean,
  what: string,
  { timeoutMs = 10_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let last: string;
    try {
      const value = await read();
      if (ok(value)) return value;
      last = JSON.stringify(value);
    } catch (err) {
      last = `error: ${(err as Error).message}`;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last saw ${last}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Waits until `check` answers true (see `eventually`). */
export async function until(check: () => boolean | Promise<boolean>, what: string, options?: { timeoutMs?: number; intervalMs?: number }): Promise<void> {
  await eventually(check, (done) => done, what, options);
}
