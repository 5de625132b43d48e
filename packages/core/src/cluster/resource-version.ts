import type { KubeObject } from '../ports/cluster.js';

/** A write a reader waits to see: a resourceVersion it produced, or a deletion. */
export type WriteTarget = { resourceVersion: string } | { deleted: true };

const integer = /^\d+$/;

/**
 * Whether `a` is a later resourceVersion than `b`. Kubernetes calls resourceVersions opaque, but both adapters (and
 * etcd behind the API server) hand out increasing integers; anything else compares as unordered.
 */
export const isLaterVersion = (a: string, b: string): boolean =>
  integer.test(a) && integer.test(b) && BigInt(a) > BigInt(b);

/**
 * Whether a cached object has caught up with a write: the same resourceVersion, or a later one (a later writer may
 * overtake ours); for a deletion, the object is gone or being finalized.
 */
export function reached(obj: KubeObject | undefined, target: WriteTarget): boolean {
  if ('deleted' in target) return obj === undefined || obj.metadata.deletionTimestamp !== undefined;
  const current = obj?.metadata.resourceVersion;
  if (current === undefined) return false;
  return current === target.resourceVersion || isLaterVersion(current, target.resourceVersion);
}
