/**
 * A key whose name contains one of these (compared without case and without separators: `DB_PASSWORD`,
 * `apiToken`, `x-api-key`, `Private-Key`) holds a secret wherever it appears (contract §12.2).
 */
const secretParts = ['password', 'passwd', 'token', 'secret', 'apikey', 'privatekey', 'credential'];

/**
 * Keys that are secrets by their whole name only: headers (`Authorization`, `Cookie`; `authorizationURL` of a
 * sign-in provider is an address), OIDC's one-time `code` and the WebSocket `ticket` (`errorCode` is no secret).
 */
const secretNames = new Set(['authorization', 'cookie', 'code', 'ticket']);

/** What a secret value is replaced with wherever Portico shows or keeps a copy it must not hold. */
export const REDACTED = '[REDACTED]';

/** Lower case, letters and digits only: `X-Api-Key`, `x_api_key` and `xApiKey` are all `xapikey`. */
export const normaliseKey = (key: string): string => key.toLowerCase().replace(/[^a-z0-9]/g, '');

const secretKeyCache = new Map<string, boolean>();

/** Whether a key names a secret by itself. Keys repeat from event to event: the answer is kept (bounded). */
export function isSecretKey(key: string): boolean {
  let secret = secretKeyCache.get(key);
  if (secret === undefined) {
    const name = normaliseKey(key);
    secret = secretNames.has(name) || secretParts.some((part) => name.includes(part));
    if (key.length <= 64 && secretKeyCache.size < 10_000) secretKeyCache.set(key, secret);
  }
  return secret;
}

/** Whether any key at any depth of `value` names a secret. */
export function holdsSecretKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsSecretKey);
  if (value === null || typeof value !== 'object') return false;
  for (const [key, inner] of Object.entries(value)) if (isSecretKey(key) || holdsSecretKey(inner)) return true;
  return false;
}

/**
 * `value` with the value of every secret-named key replaced by `REDACTED` at every depth, keys in their own order.
 * `value` itself when no key names a secret, so a shared value (and the JSON text it carries) stays shared.
 */
export function maskSecretKeys<T>(value: T): T {
  if (!holdsSecretKey(value)) return value;
  const mask = (inner: unknown): unknown => {
    if (Array.isArray(inner)) return inner.map(mask);
    if (inner === null || typeof inner !== 'object') return inner;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(inner)) {
      const masked = isSecretKey(key) ? REDACTED : mask(field);
      if (key === '__proto__') Object.defineProperty(out, key, { value: masked, enumerable: true, writable: true, configurable: true });
      else out[key] = masked;
    }
    return out;
  };
  return mask(value) as T;
}
