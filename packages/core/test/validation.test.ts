import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseInput, rememberParses } from '../src/validation.js';

const Query = z.object({ page: z.coerce.number().int().min(1).default(1), tags: z.string().optional().transform((t) => (t ? t.split(',') : [])) });

describe('rememberParses', () => {
  it('parses a text once, answers it frozen, and parses a different text anew', () => {
    let parses = 0;
    const remembered = rememberParses<z.output<typeof Query>>(8);
    const parse = (raw: Record<string, string>) => () => (parses++, parseInput(Query, raw, 'query'));
    const a = remembered('?page=2&tags=x,y', parse({ page: '2', tags: 'x,y' }));
    const b = remembered('?page=2&tags=x,y', parse({ page: '2', tags: 'x,y' }));
    expect(b).toBe(a);
    expect(parses).toBe(1);
    expect(a).toEqual({ page: 2, tags: ['x', 'y'] });
    expect(() => a.tags.push('z')).toThrow(TypeError);
    expect(remembered('?page=3', parse({ page: '3' }))).toEqual({ page: 3, tags: [] });
    expect(parses).toBe(2);
  });

  it('refuses a bad text every time it is asked, never from memory', () => {
    let parses = 0;
    const remembered = rememberParses<z.output<typeof Query>>(8);
    const bad = () => (parses++, parseInput(Query, { page: '0' }, 'query'));
    expect(() => remembered('?page=0', bad)).toThrow(/invalid query parameter "page"/);
    expect(() => remembered('?page=0', bad)).toThrow(/invalid query parameter "page"/);
    expect(parses).toBe(2);
  });

  it('keeps at most its bound, the oldest text going first', () => {
    let parses = 0;
    const remembered = rememberParses<number>(2);
    const parse = (n: number) => () => (parses++, n);
    remembered('a', parse(1));
    remembered('b', parse(2));
    remembered('c', parse(3));
    expect(parses).toBe(3);
    expect(remembered('b', parse(2))).toBe(2);
    expect(parses).toBe(3);
    expect(remembered('a', parse(1))).toBe(1);
    expect(parses).toBe(4);
  });
});
