import type { Informer } from '../cluster/informer-types.js';
import type { KubeObject } from '../ports/cluster.js';

export type InformerTarget = { resourceVersion: string } | { deleted: true };

const integer = /^\d+$/;

/**
 * Whether the cached object has caught up with a write: the same resourceVersion, or a later one when both are
 * integers (Kubernetes and the embedded cluster use etcd-style counters; a later writer may overtake ours).
 */
function reached(obj: KubeObject | undefined, target: InformerTarget): boolean {
  if ('deleted' in target) return obj === undefined || obj.metadata.deletionTimestamp !== undefined;
  const current = obj?.metadata.resourceVersion;
  if (current === undefined) return false;
  if (current === target.resourceVersion) return true;
  return integer.test(current) && integer.test(target.resourceVersion) && BigInt(current) > BigInt(target.resourceVersion);
}

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
