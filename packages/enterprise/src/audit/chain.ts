import { createHash } from 'node:crypto';
import type { AuditEvent } from './types.js';

/** The hash the first row of an empty trail points back to. */
export const GENESIS = '0'.repeat(64);

/**
 * JSON with object keys sorted at every depth: jsonb does not keep key order, the hash must not depend on it.
 * A value that JSON.stringify already writes that way (plain objects whose keys come sorted, as the recorder
 * builds them) is written by it in one native call; anything else by `sortedJson`. Both give the same text.
 */
export function canonicalJson(value: unknown): string {
  return value !== undefined && writtenInOrder(value) ? JSON.stringify(value) : sortedJson(value);
}

/**
 * Whether JSON.stringify writes `value` canonically: only JSON's own kinds of value, and objects that are plain
 * (no toJSON, no Date) with keys in sorted order in the order JSON.stringify takes them (Object.keys: integer-like
 * keys first, by number, which is why {"10", "9"} is not in order).
 */
function writtenInOrder(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return true;
  if (type !== 'object') return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!writtenInOrder(value[i])) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  for (let i = 0; i < keys.length; i++) {
    if (i > 0 && !(keys[i - 1]! < keys[i]!)) return false;
    if (!writtenInOrder(object[keys[i]!])) return false;
  }
  return true;
}

/** Keys sort by UTF-16 code units, the default sort; built with loops, as it runs for every audited operation. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + sortedJson(value[i]);
    return `${out}]`;
  }
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    let out = '{';
    for (const key of Object.keys(object).sort()) {
      const inner = object[key];
      if (inner === undefined) continue;
      out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${sortedJson(inner)}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The rule rows are written with now: hashed over a digest of their details (see `canonicalEvent`). */
export const CHAIN_VERSION = 2;

/** sha256 of the details' canonical text, in hex: what a row of chain version 2 is hashed over in their place. */
export const detailsDigest = (details: unknown): string => digestOf(canonicalJson(details));

export const digestOf = (canonical: string): string => createHash('sha256').update(canonical, 'utf8').digest('hex');

/**
 * Everything a row of chain version 2 says, in one fixed order, its details as their digest (`detailsDigest`), so
 * its details can be erased and the row still hashes to what it stores. The chain hashes this text after the
 * previous row's hash.
 */
export const canonicalEvent = (e: AuditEvent, digest: string): string =>
  canonicalJson([
    e.id, e.timestamp, e.userId, e.userEmail, e.sourceIP, e.userAgent, e.action, e.resource, e.name,
    e.project ?? null, e.namespace ?? null, e.requestId, e.result, e.httpStatus, digest,
  ]);

/**
 * The text of a row of chain version 1 (written before erasure existed): the same, with the details themselves.
 * An object where version 2 has a string, so no text is both.
 */
export const canonicalEventV1 = (e: AuditEvent): string =>
  canonicalJson([
    e.id, e.timestamp, e.userId, e.userEmail, e.sourceIP, e.userAgent, e.action, e.resource, e.name,
    e.project ?? null, e.namespace ?? null, e.requestId, e.result, e.httpStatus, e.details,
  ]);

/** Same formula as the append statement computes in PostgreSQL (see append.ts). */
export const chainHash = (prevHash: string, canonical: string): string =>
  createHash('sha256').update(`${prevHash}\n${canonical}`, 'utf8').digest('hex');
