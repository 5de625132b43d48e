/**
 * Serialise once: a value that is sent many times (an instance per resourceVersion, a list page spliced from such
 * instances) carries its JSON text under a symbol, which JSON.stringify and object spread both ignore, so a copy
 * never carries a stale text. The server writes `jsonText(body)`.
 */
const JSON_TEXT = Symbol('portico.jsonText');

type WithText = { [JSON_TEXT]?: string };

/** Gives `value` its JSON text, computed on first use and kept; the value must not change afterwards (freeze it). */
export function withLazyJsonText<T extends object>(value: T): T {
  let text: string | undefined;
  Object.defineProperty(value, JSON_TEXT, { get: () => (text ??= JSON.stringify(value)), enumerable: false });
  return value;
}

/**
 * Gives `value` a JSON text computed on first use from the text its last key's value carries (an event around an
 * index's instance): the rest is stringified, that value's own text spliced in, byte-equal to JSON.stringify.
 * The value must not change afterwards.
 */
export function withSplicedJsonText<T extends object>(value: T, lastKey: keyof T & string): T {
  let text: string | undefined;
  Object.defineProperty(value, JSON_TEXT, { get: () => (text ??= splicedText(value, lastKey)), enumerable: false });
  return value;
}

function splicedText<T extends object>(value: T, lastKey: keyof T & string): string {
  const keys = Object.keys(value);
  const inner = value[lastKey];
  if (keys[keys.length - 1] !== lastKey || inner === null || typeof inner !== 'object') return JSON.stringify(value);
  const rest: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  delete rest[lastKey];
  return withLastMember(JSON.stringify(rest), lastKey, jsonText(inner));
}

/** An object's JSON text `objectText` with one more member, `"key":valueText`, after the others. */
export const withLastMember = (objectText: string, key: string, valueText: string): string =>
  `${objectText.length === 2 ? '{' : `${objectText.slice(0, -1)},`}${JSON.stringify(key)}:${valueText}}`;

/** Gives `value` a JSON text built by the caller (byte-equal to JSON.stringify(value)). */
export function withJsonText<T extends object>(value: T, text: string): T {
  Object.defineProperty(value, JSON_TEXT, { value: text, enumerable: false });
  return value;
}

/** The JSON text of `value`: the one it carries, or JSON.stringify. */
export function jsonText(value: unknown): string {
  return (value !== null && typeof value === 'object' && (value as WithText)[JSON_TEXT]) || JSON.stringify(value);
}

const bytesOf = new WeakMap<object, Buffer>();

/**
 * The UTF-8 bytes of `value`'s JSON. A frozen value that carries its text is shared (an index's instance, a
 * Server Admin's project list kept until a project changes) and sent again and again: its bytes are encoded once
 * and kept with it. Anything else (a list page built for one request) is encoded and forgotten.
 */
export function jsonBytes(value: unknown): Buffer {
  if (value === null || typeof value !== 'object') return Buffer.from(JSON.stringify(value), 'utf8');
  const text = (value as WithText)[JSON_TEXT] ?? JSON.stringify(value);
  if (!Object.isFrozen(value) || text.length < 4096) return Buffer.from(text, 'utf8');
  let bytes = bytesOf.get(value);
  if (!bytes) bytesOf.set(value, (bytes = Buffer.from(text, 'utf8')));
  return bytes;
}
