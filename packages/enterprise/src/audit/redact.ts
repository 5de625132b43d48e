import { isSecretKey, normaliseKey, REDACTED } from '@portico/core';

export { REDACTED };

/** At most this many bytes of UTF-8 of a user agent are kept. */
export const USER_AGENT_MAX_BYTES = 1024;

export interface RedactOptions {
  /**
   * Fields, by name at any depth, whose values are a secret body: the `data` of both secret families (§11.3),
   * `clientSecret` of a sign-in provider (§11.6), `httpsAuth` / `sshAuth` of a repository (§13). The caller
   * knows which operation the input belongs to and names them; each such value is replaced whole.
   */
  secretFields?: readonly string[];
  /** @deprecated Use `secretFields: ['data']`. */
  secretData?: boolean;
}

const byKey = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

const normalise = normaliseKey;

/**
 * PostgreSQL text and jsonb hold neither NUL nor half of a surrogate pair (a request body's JSON may spell either
 * as an escape). An attacker must not be able to make a record unwritable, nor, since records are written in
 * batches, the records of whoever acted at the same moment: both become U+FFFD.
 */
export const clean = (text: string) => (text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text).toWellFormed();

/**
 * A user agent as the trail keeps it: cleaned, and at most `USER_AGENT_MAX_BYTES` bytes of UTF-8, cut between
 * two characters (never inside a character or a surrogate pair), so a client cannot make every one of its
 * events kilobytes long.
 */
export function boundedUserAgent(userAgent: string, maxBytes = USER_AGENT_MAX_BYTES): string {
  const text = clean(userAgent);
  // A UTF-16 unit is at most 3 bytes of UTF-8 (a pair of them, 4): short text needs no count.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

/** Sets a field of a copy; assigned, `__proto__` would set the copy's prototype and drop the field. */
function put(out: Record<string, unknown>, key: string, value: unknown) {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[clean(key)] = value;
}

function walk(value: unknown, bodies: ReadonlySet<string>): unknown {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return value.map((item) => walk(item, bodies));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value).sort(byKey)) {
    if (inner === undefined) continue;
    put(out, key, isSecretKey(key) || (bodies.size > 0 && bodies.has(normalise(key))) ? REDACTED : walk(inner, bodies));
  }
  return out;
}

const noBodies: ReadonlySet<string> = new Set();

/**
 * A copy of `value` safe to keep forever: at every depth, the value of every key that names a secret replaced by
 * a marker, and the values of the secret bodies the caller names (`secretFields`). Strings are cleaned. The copy's
 * keys come in sorted order at every depth, so its canonical text (chain.ts) is one JSON.stringify.
 */
export function redact(value: unknown, opts: RedactOptions = {}): unknown {
  const fields = opts.secretData === true ? [...(opts.secretFields ?? []), 'data'] : opts.secretFields;
  return walk(value, fields === undefined || fields.length === 0 ? noBodies : new Set(fields.map(normalise)));
}
