import type { CountResponse } from '@portico/api';
import { actorKey, type Actor } from '../actor.js';
import { setBounded } from '../bounded-map.js';
import type { Disposable } from '../ports/cluster.js';
import type { Authorizer } from '../types.js';
import type { InstanceIndex } from './index-types.js';
import { visibleCount, visibleRgdCounts } from './list-query.js';

/** Members' instance counts kept at once (per set of subjects and page of RGDs); the oldest goes first. */
const maxMemberCounts = 1_000;

interface MemberCounts extends Disposable {
  /** Instances per RGD name that `actor` may see (only `names`, when given). */
  countsFor(actor: Actor, names?: readonly string[]): ReadonlyMap<string, number>;
  /** How many instances `actor` may see. */
  count(actor: Actor): CountResponse;
}

/**
 * A member's instance counts for a page of RGDs, kept per set of subjects and page until an instance comes,
 * goes or moves, or the policy changes: every RGD list page asks for them, and between such changes they are
 * the same. Counted for the page's RGDs only, so a miss costs what the page asks for. A Server Admin's are the
 * index's own, maintained on every change.
 */
export function createMemberCounts(index: InstanceIndex, authz: Authorizer): MemberCounts {
  const memberCounts = new Map<string, ReadonlyMap<string, number>>();
  // A member's total, kept the same way: the instance count under the navigation is asked on every page.
  const memberTotals = new Map<string, { count: number }>();
  let memberCountsRevision = -1;
  const forgetMemberCounts = () => {
    memberCounts.clear();
    memberTotals.clear();
  };
  const subscription = authz.onChange(forgetMemberCounts);
  const followCountsRevision = () => {
    if (memberCountsRevision === index.countsRevision()) return;
    forgetMemberCounts();
    memberCountsRevision = index.countsRevision();
  };

  return {
    countsFor(actor, names) {
      if (authz.isServerAdmin(actor)) return index.rgdCounts();
      followCountsRevision();
      const key = names === undefined ? actorKey(actor) : `${actorKey(actor)}\u0000${names.join('\u0000')}`;
      let counts = memberCounts.get(key);
      if (!counts) {
        counts = setBounded(memberCounts, maxMemberCounts, key, visibleRgdCounts(index, authz, actor, names));
      }
      return counts;
    },

    count(actor) {
      if (authz.isServerAdmin(actor)) return { count: index.size() };
      followCountsRevision();
      const key = actorKey(actor);
      return memberTotals.get(key) ?? setBounded(memberTotals, maxMemberCounts, key, Object.freeze({ count: visibleCount(index, authz, actor) }));
    },

    close: () => subscription.close(),
  };
}
