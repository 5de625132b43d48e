import { describe, expect, it } from 'vitest';
import { setBounded } from '../src/bounded-map.js';

describe('setBounded', () => {
  it('keeps at most `max` entries, the oldest insertion going first', () => {
    const map = new Map<string, number>();
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) expect(setBounded(map, 3, key, i)).toBe(i);
    expect([...map]).toEqual([['b', 1], ['c', 2], ['d', 3]]);
  });

  it('replacing a key it holds evicts nothing', () => {
    const map = new Map([['a', 1], ['b', 2]]);
    setBounded(map, 2, 'a', 10);
    expect([...map]).toEqual([['a', 10], ['b', 2]]);
  });
});
