import { badRequest } from '@portico/core';

/** Keys that reach an object's prototype when a parsed value is merged somewhere downstream. */
export const forbiddenKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const forbiddenKey = () => badRequest('request contains a forbidden key', { reason: 'prototype pollution guard' });

/** A surrogate escape (`\uD800`–`\uDFFF`) in the JSON text: the only way a body can carry half of a pair. */
const surrogateEscape = /\\u[dD][89a-fA-F]/;
const notUnicode = () => badRequest('request body holds text that is not valid Unicode (an unpaired surrogate escape)', { reason: 'invalid text' });

/**
 * JSON.parse with a reviver that refuses prototype keys anywhere in the document, and a fixed message for
 * malformed input (the parser's message may quote the body back). Text that is not valid Unicode is refused
 * too: the bytes of a body are checked as UTF-8 when read, but an escape can still spell half of a surrogate
 * pair, which no store downstream (PostgreSQL's jsonb, a Kubernetes API server) keeps as it was sent.
 */
export function parseJsonBody(text: string): unknown {
  let refusal: (() => Error) | undefined;
  const checkText = surrogateEscape.test(text);
  let value: unknown;
  try {
    value = JSON.parse(text, function reviver(key, v) {
      if (forbiddenKeys.has(key)) refusal = forbiddenKey;
      else if (checkText && (!key.isWellFormed() || (typeof v === 'string' && !v.isWellFormed()))) refusal = notUnicode;
      if (refusal) throw refusal();
      return v;
    });
  } catch {
    throw refusal ? refusal() : badRequest('malformed JSON body');
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

