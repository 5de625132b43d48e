import { describe, expect, it } from 'vitest';
import { createPageMemo } from '../src/page-memo.js';

describe('page memo', () => {
  it('answers a kept page only for the same source and version, frozen', () => {
    const memo = createPageMemo<{ n: number }>();
    const source = {};
    const page = memo.keep('p1', source, 3, { n: 1 }, 10);
    expect(Object.isFrozen(page)).toBe(true);
    expect(memo.get('p1', source, 3)).toBe(page);
    expect(memo.get('p1', source, 4)).toBeUndefined();
    // A source rebuilt under the same key (a view evicted and made again) never gets the old page.
    expect(memo.get('p1', {}, 3)).toBeUndefined();
  });

  it('keeps neither more pages nor larger pages than it was given', () => {
    const memo = createPageMemo<{ n: number }>(2, 100);
    const source = {};
    for (const n of [1, 2, 3]) memo.keep(`p${n}`, source, 0, { n }, 10);
    expect(memo.get('p1', source, 0)).toBeUndefined();
    expect(memo.get('p3', source, 0)).toEqual({ n: 3 });
    memo.keep('big', source, 0, { n: 4 }, 101);
    expect(memo.get('big', source, 0)).toBeUndefined();
  });
});
