/** Plain-JSON helpers for the embedded store: objects are JSON values, so these stay small and exact. */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Normalises caller input to plain JSON, so memory and disk agree: the value JSON.parse(JSON.stringify(value))
 * gives. Plain objects, arrays and primitives are copied without printing and re-reading their strings (objects
 * are patched on every change of state, and a large one would pay for its whole text each time); anything
 * else (a Date or other toJSON, a class instance, a `__proto__` key, a bigint, a cycle) takes the round trip.
 */
export function toJson<T>(value: T): T {
  const copied = typeof value === 'object' && value !== null ? plainCopy(value, 0) : notPlain;
  return (copied === notPlain ? JSON.parse(JSON.stringify(value)) : copied) as T;
}

const notPlain: unique symbol = Symbol('not plain JSON');
/** Deeper than this is left to JSON itself (which also reports cycles the way callers know). */
const maxPlainDepth = 200;
/** What JSON leaves out of an object and writes as null in an array. */
const omitted = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

function plainCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null; // -0 prints as 0, NaN and ±Infinity as null
    case 'object':
      break;
    default:
      return notPlain; // bigint (JSON throws on it)
  }
  if (value === null) return null;
  if (depth > maxPlainDepth || typeof (value as { toJSON?: unknown }).toJSON === 'function') return notPlain;
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      const c = omitted(v) ? null : plainCopy(v, depth + 1);
      if (c === notPlain) return notPlain;
      out[i] = c;
    }
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return notPlain;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === '__proto__') return notPlain;
    const v: unknown = (value as Record<string, unknown>)[key];
    if (omitted(v)) continue;
    const c = plainCopy(v, depth + 1);
    if (c === notPlain) return notPlain;
    out[key] = c;
  }
  return out;
}

export { deepEqual } from '../../json-equal.js';

/**
 * RFC 7386 JSON merge patch: objects merge recursively, `null` deletes a key, anything else replaces. The result
 * takes the patch's arrays as they are, so the patch must be the caller's own copy (`toJson` of the input): copying
 * them again would copy a Project's roles once more on every binding, for nothing.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else if (value !== undefined) result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** JSON with sorted keys: the same document always hashes the same, whatever its key order in YAML. */
export function stableStringify(value: unknown): string {
  // One string built in loops (no array per object or key): it runs on every manifest document at every start.
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i > 0 ? ',' : ''}${stableStringify(value[i]) ?? ''}`;
    return `${out}]`;
  }
  const object = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const key of Object.keys(object).sort()) {
    if (object[key] === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(key)}:${stableStringify(object[key])}`;
    first = false;
  }
  return `${out}}`;
}

export { isObject };
