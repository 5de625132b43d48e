import { actorKey, type Actor } from '../actor.js';

/**
 * Who a socket is in policy: subject and groups, nothing else. All the sockets of one user share one Principal
 * (interned), so a decision made for one of them serves the others, and per-socket lookups key on an object
 * rather than on a string built per socket and event.
 */
export interface Principal {
  readonly actor: Actor;
  readonly key: string;
}

export interface Principals {
  acquire(actor: Actor): Principal;
  release(principal: Principal): void;
}

export function createPrincipals(): Principals {
  const interned = new Map<string, { principal: Principal; refs: number }>();
  return {
    acquire(actor) {
      const key = actorKey(actor);
      let entry = interned.get(key);
      if (!entry) interned.set(key, (entry = { principal: { actor, key }, refs: 0 }));
      entry.refs++;
      return entry.principal;
    },
    release(principal) {
      const entry = interned.get(principal.key);
      if (entry?.principal !== principal) return;
      if (--entry.refs === 0) interned.delete(principal.key);
    },
  };
}

/** principal → may it `get` the object. */
export type DecisionMemo = Map<Principal, boolean>;

/**
 * `authz.can(actor, 'get', object)` decisions, remembered per object and principal until the policy changes.
 * Status changes hit the same objects over and over (every step of a deployment, to every member of a project);
 * remembering turns 40 policy evaluations per event into 40 map lookups. `clear()` must run on every
 * `authz.onChange`: the authorizer calls its listeners synchronously, right after swapping in the new policy
 * and before any other event can be handled, so no decision from an older policy is ever used after a change.
 * Bounded: past `maxEntries` decisions or objects it starts over (a decision is only ever recomputed, never guessed).
 */
interface DecisionCache {
  /** The memo for one object; look up and `remember` through it for each socket of an event. */
  memoFor(object: string): DecisionMemo;
  remember(memo: DecisionMemo, principal: Principal, allowed: boolean): void;
  clear(): void;
  /** Decisions held (operations, tests). */
  size(): number;
}

export function createDecisionCache(maxEntries = 100_000): DecisionCache {
  const byObject = new Map<string, DecisionMemo>();
  let entries = 0;
  const clear = () => {
    byObject.clear();
    entries = 0;
  };
  return {
    memoFor(object) {
      let memo = byObject.get(object);
      if (memo === undefined) {
        // Objects count too: an event nobody may see still leaves an (empty) memo behind, and instances come
        // and go under new names, so bounding decisions alone would let the objects grow without end.
        if (entries >= maxEntries || byObject.size >= maxEntries) clear();
        byObject.set(object, (memo = new Map()));
      }
      return memo;
    },
    remember(memo, principal, allowed) {
      memo.set(principal, allowed);
      entries++;
    },
    clear,
    size: () => entries,
  };
}
