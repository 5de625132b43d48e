/** Plain-JSON helpers for the embedded store: objects are JSON values, so these stay small and exact. */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Normalises caller input to plain JSON (drops undefined, rejects functions), so memory and disk agree. */
export const toJson = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export const clone = <T>(value: T): T => structuredClone(value);

export { deepEqual } from '../../json-equal.js';

/** RFC 7386 JSON merge patch: objects merge recursively, `null` deletes a key, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  // Strings, numbers and booleans are immutable: only arrays need a copy of their own.
  if (!isObject(patch)) return typeof patch === 'object' && patch !== null ? clone(patch) : patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else if (value !== undefined) result[key] = mergePatch(result[key], value);
  }
  return result;
}

/** JSON with sorted keys: the same document always hashes the same, whatever its key order in YAML. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (isObject(value)) {
    const entries = Object.keys(value)
      .filter((k) => value[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

export { isObject };
