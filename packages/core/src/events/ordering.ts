import type { DomainEvent } from '../types.js';
import { setBounded } from '../bounded-map.js';

/** Objects whose last delivered version is remembered; beyond this the least recently changed are forgotten. */
const defaultCapacity = 100_000;

const versionOf = (value: string | undefined): bigint | undefined => (value && /^\d{1,30}$/.test(value) ? BigInt(value) : undefined);

/** A deletion may carry the same version as the object's last update; it still comes after it. */
const rankOf = (event: DomainEvent) => ((event.data as { action?: unknown } | undefined)?.action === 'delete' ? 1 : 0);

/**
 * Per-object ordering at the receiving end. Replicas publish at least once (a retried publish, a claim that
 * expired) and two replicas may publish successive changes of one object in either order, so a receiver
 * delivers an object's change only if it is newer than the last one it delivered of the same type: duplicates
 * and changes overtaken by a later one are dropped. The later one carries the object's whole state, so what
 * a client ends with is right; it never goes back to an older state. Events without an identity and a numeric
 * resourceVersion (Kubernetes' are opaque, but every implementation we run on uses integers) pass unchanged.
 */
export function createOrdering(capacity = defaultCapacity) {
  const last = new Map<string, { version: bigint; rank: number }>();
  let newest: bigint | undefined;

  return {
    /** The highest version delivered so far (what a client holds at least, if it missed nothing). */
    newest: () => (newest === undefined ? undefined : String(newest)),
    /** True when the event is new for its object: deliver it. */
    admit(event: DomainEvent): boolean {
      const version = versionOf(event.resourceVersion);
      if (event.uid === undefined || version === undefined) return true;
      const key = `${event.uid}\u0000${event.type}`;
      const rank = rankOf(event);
      const seen = last.get(key);
      if (seen && (version < seen.version || (version === seen.version && rank <= seen.rank))) return false;
      if (newest === undefined || version > newest) newest = version;
      last.delete(key); // re-inserted last: the map's order is least recently changed first
      setBounded(last, capacity, key, { version, rank });
      return true;
    },
  };
}
