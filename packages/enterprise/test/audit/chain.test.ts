import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/audit/chain.js';

describe('canonicalJson', () => {
  // Rows already in a trail were hashed over this text: `verify` can only recompute their hashes if the text of a
  // value never changes. The expected string was produced by the first implementation (entries, filter, sort).
  it('writes a value exactly as the rows already in a trail were hashed', () => {
    const value = {
      '10': 'ten', '9': 'nine',
      zeta: [3, undefined, null, { b: 'x', a: '"quoted"\n' }],
      Émile: true, a10: 1, a9: 2, '': 'empty', skip: undefined,
      nested: { '😀': 'smile', z: [], B: {}, b: 1.5e-7 },
      when: new Date(0),
    };
    expect(canonicalJson(value)).toBe("{\"\":\"empty\",\"10\":\"ten\",\"9\":\"nine\",\"a10\":1,\"a9\":2,\"nested\":{\"B\":{},\"b\":1.5e-7,\"z\":[],\"😀\":\"smile\"},\"when\":{},\"zeta\":[3,null,null,{\"a\":\"\\\"quoted\\\"\\n\",\"b\":\"x\"}],\"Émile\":true}");
  });

  it('does not depend on the order keys were written in', () => {
    expect(canonicalJson({ b: { d: 1, c: 2 }, a: 0 })).toBe(canonicalJson({ a: 0, b: { c: 2, d: 1 } }));
  });
});
