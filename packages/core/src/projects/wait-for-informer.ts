import type { Informer } from '../cluster/informer-types.js';
import { reached, type WriteTarget } from '../cluster/resource-version.js';

/** What a project writer waits for the informer to show. */
export type InformerTarget = WriteTarget;

/**
 * Resolves once the informer's cache shows a write (so the next request, of any user, is answered from state
 * that includes it — the authorizer rebuilds inside the same informer event). Resolves `false` after
 * `timeoutMs` instead of failing: the write itself has succeeded.
 */
export function waitForInformer(
  informer: Informer,
  name: string,
  namespace: string | undefined,
  target: InformerTarget,
  timeoutMs = 5_000,
): Promise<boolean> {
  if (reached(informer.get(name, namespace), target)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      subscription.close();
      resolve(ok);
    };
    const subscription = informer.on(() => {
      if (reached(informer.get(name, namespace), target)) finish(true);
    });
    const timer = setTimeout(() => finish(false), timeoutMs);
    // A relist may have happened between the first look and the subscription.
    if (reached(informer.get(name, namespace), target)) finish(true);
  });
}
