import { badRequest } from '@portico/core';

/** Keys that reach an object's prototype when a parsed value is merged somewhere downstream. */
export const forbiddenKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const forbiddenKey = () => badRequest('request contains a forbidden key', { reason: 'prototype pollution guard' });

/**
 * JSON.parse with a reviver that refuses prototype keys anywhere in the document, and a fixed message for
 * malformed input (the parser's message may quote the body back).
 */
export function parseJsonBody(text: string): unknown {
  let refused = false;
  let value: unknown;
  try {
    value = JSON.parse(text, function reviver(key, v) {
      if (forbiddenKeys.has(key)) {
        refused = true;
        throw forbiddenKey();
      }
      return v;
    });
  } catch {
    throw refused ? forbiddenKey() : badRequest('malformed JSON body');
  }
  return value;
}

const keySeparators = /[.[\]]/;

/** Query keys are flat, but `a[__proto__]` and `a.constructor` are how nested parsers get fooled. */
export function assertSafeQueryKey(key: string): void {
  // Most keys have no separator: one set lookup, no array.
  const unsafe = keySeparators.test(key) ? key.split(keySeparators).some((part) => forbiddenKeys.has(part)) : forbiddenKeys.has(key);
  if (unsafe) throw forbiddenKey();
}

