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
