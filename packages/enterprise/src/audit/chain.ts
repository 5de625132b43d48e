import { createHash } from 'node:crypto';
import type { AuditEvent } from './types.js';

/** The hash the first row of an empty trail points back to. */
export const GENESIS = '0'.repeat(64);

/** JSON with object keys sorted at every depth: jsonb does not keep key order, the hash must not depend on it. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
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
