import { isPorticoError } from '../errors.js';

/**
 * Runs `fn` again when it fails with CONFLICT (another writer changed the object since it was read; `fn`
 * re-reads and recomputes), up to `attempts` runs in all (default 5). Retries are spread by a short random
 * pause that grows per attempt, so writers that collided do not collide again in lockstep. Any other error,
 * and the last CONFLICT, is thrown as it is.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, opts: { attempts?: number } = {}): Promise<T> {
  const attempts = Math.max(1, opts.attempts ?? 5);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (!isPorticoError(error) || error.code !== 'CONFLICT' || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
