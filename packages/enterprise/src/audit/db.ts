import type { QueryResult, QueryResultRow } from 'pg';

/** What audit code needs of a pool or a client: one query at a time. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
  /** A named statement: PostgreSQL parses and plans it once per connection (the hot paths: append, config). */
  query<R extends QueryResultRow = QueryResultRow>(config: { name: string; text: string; values?: unknown[] }): Promise<QueryResult<R>>;
}

export { UNBOUNDED_STATEMENT, streaming } from '../db/cursor.js';
