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

  // A value whose keys already come sorted is written by JSON.stringify in one call; these are the values where
  // JSON.stringify alone would write another text than the rows were hashed over.
  it('writes values that only look sorted as the rows were hashed', () => {
    // Written '10' before '9' (sorted), but JavaScript keeps integer-like keys in numeric order.
    expect(canonicalJson({ '10': 'ten', '9': 'nine', a: [{ b: 1, c: 2 }] })).toBe('{"10":"ten","9":"nine","a":[{"b":1,"c":2}]}');
    expect(canonicalJson({ a: 1, when: new Date(0) })).toBe('{"a":1,"when":{}}');
    expect(canonicalJson({ a: 1, b: undefined, c: [undefined] })).toBe('{"a":1,"c":[null]}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson(Object.assign(Object.create(null) as object, { a: 'x', b: 'y' }))).toBe('{"a":"x","b":"y"}');
  });
});
