import { Transform, type Readable } from 'node:stream';
import type { Pool } from 'pg';
import { stringify } from 'csv-stringify';
import { streamQuery } from '../db/cursor.js';
import { whereOf } from './filter-sql.js';
import type { AuditRow } from './row.js';
import type { AuditFilter } from './types.js';

export type ExportFormat = 'csv' | 'ndjson';

const csvColumns = ['id', 'timestamp', 'userId', 'userEmail', 'sourceIP', 'userAgent', 'action', 'resource', 'name', 'project',
  'namespace', 'requestId', 'result', 'httpStatus', 'details', 'erased'];

const rfc3339 = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * PostgreSQL hands each row over ready to print: the timestamp already in RFC 3339 (as `toISOString` writes
 * it), `details` as JSON text, and an erasure as the JSON of the event's `erased` (null when not erased), so an
 * export never parses and re-serialises them row by row.
 */
const exportColumns = `id, ${rfc3339('ts')} AS timestamp, user_id, user_email, source_ip,
  user_agent, action, resource, name, project, namespace, request_id, result, http_status, details::text AS details,
  CASE WHEN erased_at IS NULL THEN NULL
       ELSE json_build_object('at', ${rfc3339('erased_at')}, 'by', erased_by, 'reason', erased_reason)::text END AS erased`;

/** An `audit_events` row as the export selects it: timestamp, details and erasure already text (see exportColumns). */
type ExportRow = Pick<AuditRow, 'id' | 'user_id' | 'user_email' | 'source_ip' | 'user_agent' | 'action' | 'resource' | 'name' | 'project'
  | 'namespace' | 'request_id' | 'result' | 'http_status'> & { timestamp: string; details: string; erased: string | null };

const q = JSON.stringify;

/** One AuditEvent as a JSON line (the contract's field names; `project`/`namespace` only when set). */
const jsonLine = (r: ExportRow) =>
  `{"id":${q(r.id)},"timestamp":${q(r.timestamp)},"userId":${q(r.user_id)},"userEmail":${q(r.user_email)},"sourceIP":${q(r.source_ip)},` +
  `"userAgent":${q(r.user_agent)},"action":${q(r.action)},"resource":${q(r.resource)},"name":${q(r.name)}` +
  `${r.project === null ? '' : `,"project":${q(r.project)}`}${r.namespace === null ? '' : `,"namespace":${q(r.namespace)}`}` +
  `,"requestId":${q(r.request_id)},"result":${q(r.result)},"httpStatus":${r.http_status},"details":${r.details}` +
  `${r.erased === null ? '' : `,"erased":${r.erased}`}}\n`;

const ndjson = () =>
  new Transform({
    writableObjectMode: true,
    transform(row: ExportRow, _enc, done) {
      done(null, jsonLine(row));
    },
  });

const csv = () => {
  const toRecord = new Transform({
    objectMode: true,
    transform(r: ExportRow, _enc, done) {
      done(null, [r.id, r.timestamp, r.user_id, r.user_email, r.source_ip, r.user_agent, r.action, r.resource, r.name, r.project ?? '',
        r.namespace ?? '', r.request_id, r.result, r.http_status, r.details, r.erased ?? '']);
    },
  });
  // A cell starting with = + - @ would run as a formula in a spreadsheet: csv-stringify quotes it away.
  const text = stringify({ header: true, columns: csvColumns, escape_formulas: true });
  return { toRecord, text };
};

/**
 * Newest first, every row that matches, of any count: a server-side cursor reads batches as the client
 * consumes them (back-pressure all the way to PostgreSQL), so memory stays flat. The connection goes back
 * to the pool when the stream ends, and is dropped when it fails or the client goes away mid-way.
 */
export async function exportEvents(pool: Pool, filter: AuditFilter, format: ExportFormat): Promise<Readable> {
  const where = whereOf(filter);
  return streamQuery(pool, `SELECT ${exportColumns} FROM audit_events ${where.sql} ORDER BY id DESC`, where.values, (rows) => {
    if (format === 'ndjson') return rows.pipe(ndjson());
    const { toRecord, text } = csv();
    return rows.pipe(toRecord).pipe(text);
  });
}
