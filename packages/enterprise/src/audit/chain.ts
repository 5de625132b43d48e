import { createHash } from 'node:crypto';
import type { AuditEvent } from './types.js';

/** The hash the first row of an empty trail points back to. */
export const GENESIS = '0'.repeat(64);

/**
 * JSON with object keys sorted at every depth: jsonb does not keep key order, the hash must not depend on it.
 * (Keys sort by UTF-16 code units, the default sort; built with loops, as it runs for every audited operation.)
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i]);
    return `${out}]`;
  }
  if (value !== null && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    let out = '{';
    for (const key of Object.keys(object).sort()) {
      const inner = object[key];
      if (inner === undefined) continue;
      out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(inner)}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Everything a row says, in one fixed order; the chain hashes this text after the previous row's hash. */
export const canonicalEvent = (e: AuditEvent): string =>
  canonicalJson([
    e.id, e.timestamp, e.userId, e.userEmail, e.sourceIP, e.userAgent, e.action, e.resource, e.name,
    e.project ?? null, e.namespace ?? null, e.requestId, e.result, e.httpStatus, e.details,
  ]);

/** Same formula as the append statement computes in PostgreSQL (see append.ts). */
export const chainHash = (prevHash: string, canonical: string): string =>
  createHash('sha256').update(`${prevHash}\n${canonical}`, 'utf8').digest('hex');
