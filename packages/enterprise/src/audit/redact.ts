/** Keys whose values are secrets wherever they appear (compared without case, `_` or `-`). */
const secretKeys = new Set(['password', 'currentpassword', 'newpassword', 'oldpassword', 'token', 'accesstoken', 'refreshtoken', 'idtoken',
  'secret', 'clientsecret', 'privatekey', 'apikey', 'authorization', 'cookie', 'code', 'ticket']);

export const REDACTED = '[REDACTED]';

const byKey = (a: [string, unknown], b: [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

const normalise = (key: string) => {
  const lower = key.toLowerCase();
  return lower.includes('-') || lower.includes('_') ? lower.replace(/[-_]/g, '') : lower;
};

/**
 * PostgreSQL text and jsonb hold neither NUL nor half of a surrogate pair (a request body's JSON may spell either
 * as an escape). An attacker must not be able to make a record unwritable, nor, since records are written in
 * batches, the records of whoever acted at the same moment: both become U+FFFD.
 */
export const clean = (text: string) => (text.includes('\u0000') ? text.replaceAll('\u0000', '\uFFFD') : text).toWellFormed();

/**
 * A copy of `value` safe to keep forever: every secret-like field at every depth replaced by a marker,
 * and `data` replaced too where it holds a Secret's values (`secret: true` marks such an input). The copy's keys
 * come in sorted order, so its canonical text (chain.ts) is one JSON.stringify.
 */
export function redact(value: unknown, opts: { secretData?: boolean } = {}): unknown {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return value.map((item) => redact(item, opts));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value).sort(byKey)) {
    const secret = secretKeys.has(normalise(key)) || (key === 'data' && opts.secretData === true);
    const kept = secret && inner !== undefined ? REDACTED : redact(inner, opts);
    // Assigned, `__proto__` would set the copy's prototype and drop the field from the record.
    if (key === '__proto__') Object.defineProperty(out, key, { value: kept, enumerable: true, writable: true, configurable: true });
    else out[clean(key)] = kept;
  }
  return out;
}
