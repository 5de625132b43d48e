import { readFile } from 'node:fs/promises';
import YAML from 'yaml';
import { usageError } from './exit-codes.js';

export type Values = Record<string, unknown>;

const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

/** `a.b\.c` → ['a', 'b.c']: dots separate levels, `\.` keeps a dot inside a key. */
export function splitKeyPath(path: string): string[] {
  const keys: string[] = [];
  let current = '';
  for (let i = 0; i < path.length; i++) {
    const ch = path[i];
    if (ch === '\\' && path[i + 1] === '.') {
      current += '.';
      i++;
    } else if (ch === '.') {
      keys.push(current);
      current = '';
    } else current += ch;
  }
  keys.push(current);
  return keys;
}

/**
 * A `--set` value as the type a reader would expect: true/false, null, numbers (not with leading zeros, which
 * are usually identifiers), JSON arrays and objects; everything else stays a string.
 */
export function parseScalar(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(text)) {
    const n = Number(text);
    if (Number.isFinite(n) && (!Number.isInteger(n) || Number.isSafeInteger(n))) return n;
  }
  if (/^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      // not JSON after all: keep the text
    }
  }
  return text;
}

/** Sets `values[a][b]… = value`, creating objects on the way; refuses to overwrite a scalar with an object. */
export function setPath(values: Values, path: string, value: unknown, flag = '--set'): Values {
  const keys = splitKeyPath(path);
  if (keys.some((k) => k === '')) throw usageError(`invalid ${flag} key "${path}": empty segment`);
  const bad = keys.find((k) => forbiddenKeys.has(k));
  if (bad) throw usageError(`invalid ${flag} key "${path}": "${bad}" is not allowed`);
  let node: Values = values;
  for (const key of keys.slice(0, -1)) {
    const next = Object.prototype.hasOwnProperty.call(node, key) ? node[key] : undefined;
    if (next === undefined || next === null) node[key] = {};
    else if (typeof next !== 'object' || Array.isArray(next)) throw usageError(`invalid ${flag} "${path}": "${key}" already holds a value`);
    node = node[key] as Values;
  }
  node[keys[keys.length - 1]] = value;
  return values;
}

const splitAssignment = (assignment: string, flag: string): [string, string] => {
  const eq = assignment.indexOf('=');
  if (eq <= 0) throw usageError(`invalid ${flag} "${assignment}": expected key=value`);
  return [assignment.slice(0, eq), assignment.slice(eq + 1)];
};

/** Applies `--set k=v` (typed) and then `--set-string k=v` (kept as text) on top of `base`. */
export function applySets(base: Values, sets: string[] = [], setStrings: string[] = []): Values {
  const values = structuredClone(base);
  for (const s of sets) {
    const [key, text] = splitAssignment(s, '--set');
    setPath(values, key, parseScalar(text), '--set');
  }
  for (const s of setStrings) {
    const [key, text] = splitAssignment(s, '--set-string');
    setPath(values, key, text, '--set-string');
  }
  return values;
}

/** A values file (`-f`): YAML or JSON holding a mapping. */
export async function readValuesFile(path: string): Promise<Values> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw usageError(`cannot read values file ${path}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (e) {
    throw usageError(`values file ${path} is not valid YAML: ${(e as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw usageError(`values file ${path} must hold a mapping of values`);
  return doc as Values;
}
