import { describe, expect, it } from 'vitest';
import { systemActor } from '@portico/core';
import { createDecisionCache, createPrincipals } from '../../../core/src/events/decisions.js';

describe('WebSocket decision cache bound', () => {
  it('starts over once it holds too many objects, even when none of them got a decision', () => {
    const principal = createPrincipals().acquire(systemActor('alice'));
    const cache = createDecisionCache(3);
    cache.remember(cache.memoFor('instances/a/dev/K/kept'), principal, true);
    // Events for instances nobody connected may see (churned names, e.g. CI instances): memos, no decisions.
    for (let i = 0; i < 10; i++) cache.memoFor(`instances/a/dev/K/ephemeral-${i}`);
    // Past the bound the cache has started over: the old decision is gone (recomputed, never kept forever).
    expect(cache.memoFor('instances/a/dev/K/kept').get(principal)).toBeUndefined();
  });
});
