import { Transform, type Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Pool } from 'pg';
import type { ViolationHistoryRecord } from '@portico/api/enterprise';
import { streamQuery } from '../../db/cursor.js';
import { historyWhere, type HistoryFilter, type HistoryScope } from './filter-sql.js';
import { recordColumns, recordOrder } from './query.js';

/** The record's fields in the contract's order: the CSV header. */
export const historyCsvColumns = ['key', 'constraintKind', 'constraintName', 'resourceKind', 'resourceNamespace', 'resourceName',
  'enforcementAction', 'message', 'firstSeen', 'resolvedAt', 'status'] as const;

const toCells = () =>
  new Transform({
    objectMode: true,
    transform(r: ViolationHistoryRecord, _enc, done) {
      done(null, historyCsvColumns.map((c) => r[c] ?? ''));
    },
  });

/**
 * Every record the caller may see that matches, newest first seen first, as CSV of any length: rows come
 * off a server-side cursor as the client reads (flat memory). Cells that a spreadsheet would run as a formula
 * (a message starting with `=`) are defused by csv-stringify.
 */
export function exportHistory(pool: Pool, scope: HistoryScope, filter: HistoryFilter): Promise<Readable> {
  const where = historyWhere(scope, filter);
  return streamQuery(pool, `SELECT ${recordColumns} FROM violation_history ${where.sql} ${recordOrder}`, where.values, (rows) =>
    rows.pipe(toCells()).pipe(stringify({ header: true, columns: [...historyCsvColumns], escape_formulas: true })),
  );
}
