import type { ApiAs, Reply } from './api-as.js';

/** Polls GET `path` as `who` until `ok` holds; past `timeoutMs` fails with the last reply. */
export async function until<T = any>(who: ApiAs, path: string, ok: (r: Reply<T>) => boolean, what: string, timeoutMs = 20_000): Promise<Reply<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await who.get<T>(path);
    if (ok(reply)) return reply;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${reply.status} ${JSON.stringify(reply.body)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
