import type { QueryResult, QueryResultRow } from 'pg';

/** What audit code needs of a pool or a client: one query at a time. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

/** The longest timer Node keeps (about 24.8 days). */
const NO_READ_TIMEOUT = 2 ** 31 - 1;

/**
 * A cursor streams for as long as its reader takes (an export of millions of rows), so it is exempt from
 * the pool's timeouts: the client's whole-query read timeout here, and PostgreSQL's `statement_timeout`
 * (which spans the whole cursor) by `SET LOCAL statement_timeout = 0` in the cursor's transaction.
 */
export const streaming = <T extends object>(cursor: T): T => Object.assign(cursor, { query_timeout: NO_READ_TIMEOUT });

export const UNBOUNDED_STATEMENT = 'SET LOCAL statement_timeout = 0';
