import { createHash } from 'node:crypto';
import type * as api from '@portico/api';
import { deepEqual } from '../json-equal.js';

const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON with every object's keys sorted: the same spec gives the same text whatever order it was written in. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  if (isMap(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The contentHash of a revision: sha256 (hex) of the spec's canonical JSON. */
export const contentHash = (spec: unknown): string => createHash('sha256').update(canonicalJson(spec)).digest('hex');

/**
 * What changed from `before` to `after`: maps are compared key by key (paths joined with "."), anything else —
 * arrays included — as a whole value. A key present on one side only is added or removed with its whole value.
 */
export function diffSpecs(before: unknown, after: unknown): Pick<api.RevisionDiff, 'added' | 'removed' | 'modified'> {
  const added: api.DiffField[] = [];
  const removed: api.DiffField[] = [];
  const modified: api.DiffField[] = [];
  const walk = (a: unknown, b: unknown, path: string) => {
    if (isMap(a) && isMap(b)) {
      const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
      for (const key of keys) {
        const at = path ? `${path}.${key}` : key;
        const inA = a[key] !== undefined;
        const inB = b[key] !== undefined;
        if (inA && !inB) removed.push({ path: at, oldValue: a[key] });
        else if (!inA && inB) added.push({ path: at, newValue: b[key] });
        else if (inA && inB) walk(a[key], b[key], at);
      }
      return;
    }
    if (!deepEqual(a, b)) modified.push({ path, oldValue: a, newValue: b });
  };
  walk(before, after, '');
  return { added, removed, modified };
}
