import { describe, expect, it } from 'vitest';
import { toJson } from '../../src/adapters/embedded-cluster/json.js';

/** What the embedded cluster must store for a caller's object: exactly what a JSON round trip gives. */
const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

/** A small seeded generator, so a failure names a value that can be reproduced. */
function generator(seed: number) {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const strings = ['', 'plain', 'quote " and \\ backslash', 'line\nbreak\ttab', 'emoji 🙂', 'lone \ud800 surrogate', '\u0000nul', '[{"type":"json in a string"}]'];
  const numbers = [0, -0, 1, -1.5, 1e21, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];
  const keys = ['a', 'b', 'name', '10', '2', 'with space', 'toString'];
  const value = (depth: number): unknown => {
    const kind = depth > 4 ? Math.floor(next() * 6) : Math.floor(next() * 8);
    switch (kind) {
      case 0:
        return pick(strings);
      case 1:
        return pick(numbers);
      case 2:
        return pick([true, false, null]);
      case 3:
        return undefined;
      case 4:
        return pick([() => 1, Symbol('s')]);
      case 5:
        return pick(strings) + String(Math.floor(next() * 100));
      case 6:
        return Array.from({ length: Math.floor(next() * 5) }, () => value(depth + 1));
      default: {
        const obj: Record<string, unknown> = {};
        for (let i = Math.floor(next() * 5); i > 0; i--) obj[pick(keys)] = value(depth + 1);
        return obj;
      }
    }
  };
  return () => ({ root: value(0) });
}

describe('embedded cluster: toJson (caller input as stored)', () => {
  it('gives what a JSON round trip gives, key order included, for any plain value', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const input = generator(seed)();
      const stored = toJson(input);
      expect(stored, `seed ${seed}`).toStrictEqual(roundTrip(input));
      expect(JSON.stringify(stored), `seed ${seed}`).toBe(JSON.stringify(input));
    }
  });

  it('shares no object or array with the caller: changing either later changes nothing in the other', () => {
    const input = { metadata: { labels: { a: '1' } }, spec: { list: [{ x: 1 }] } };
    const stored = toJson(input);
    input.metadata.labels.a = 'changed';
    input.spec.list[0].x = 2;
    expect(stored).toEqual({ metadata: { labels: { a: '1' } }, spec: { list: [{ x: 1 }] } });
  });

  it('treats what is not plain data as JSON does', () => {
    class Custom {
      own = 'kept';
      method() {
        return 1;
      }
    }
    const at = new Date('2026-01-02T03:04:05.000Z');
    const cases: Record<string, unknown>[] = [
      { at },
      { custom: new Custom() },
      { map: new Map([['a', 1]]), set: new Set([1]) },
      { withToJson: { toJSON: () => ({ replaced: true }) } },
      { list: Object.assign([1, 2], { toJSON: () => 'list' }) },
      { bytes: new Uint8Array([1, 2]) },
      { boxed: [new String('text'), new Number(1), new Boolean(false)] },
      { nullProto: Object.assign(Object.create(null) as object, { a: 1 }) },
    ];
    for (const input of cases) expect(toJson(input)).toStrictEqual(roundTrip(input));
    expect(toJson({ at })).toEqual({ at: '2026-01-02T03:04:05.000Z' });
  });

  it('keeps a "__proto__" key as data, never as the prototype', () => {
    const input = JSON.parse('{"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}') as { metadata: { labels: Record<string, unknown> } };
    const stored = toJson(input);
    expect(Object.keys(stored.metadata.labels)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(stored.metadata.labels)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('fails as JSON fails on a cycle or a bigint, and copies a deep document', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => toJson(cyclic)).toThrow(TypeError);
    expect(() => toJson({ n: 1n })).toThrow(TypeError);
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 1000; i++) deep = { next: deep };
    expect(toJson(deep)).toStrictEqual(roundTrip(deep));
  });
});
