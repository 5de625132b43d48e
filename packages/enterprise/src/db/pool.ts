import pg from 'pg';

export interface DatabaseConfig {
  /** `postgres://user:password@host:port/db` (contract: `DATABASE_URL`). */
  url: string;
  /** The schema every Enterprise table lives in (`PORTICO_DB_SCHEMA`, default `portico_ee`). */
  schema: string;
  /** Connections kept at most; a replica needs few, PostgreSQL's own limit is shared by all replicas. */
  max?: number;
  /** Waiting this long for a connection means PostgreSQL is down for us: fail fast, answer 503. */
  connectTimeoutMs?: number;
  /** A statement running longer than this is cancelled by PostgreSQL itself. */
  statementTimeoutMs?: number;
  /** Idle connections are closed after this, so a restarted database is not met with dead sockets. */
  idleTimeoutMs?: number;
}

export type Pool = pg.Pool;

const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

/** Schema names end up in `search_path` and in DDL: only plain lower-case identifiers are accepted. */
export function assertSchemaName(schema: string): string {
  if (!SCHEMA.test(schema)) throw new Error(`PORTICO_DB_SCHEMA must be a lower-case SQL identifier (got "${schema}")`);
  return schema;
}

/**
 * The one PostgreSQL pool of a replica. Every session starts in the Enterprise schema, so queries name
 * tables without a schema prefix. Timeouts are short on purpose: an outage must become a 503 within
 * seconds, never a request that hangs.
 */
export function createPool(config: DatabaseConfig): Pool {
  const schema = assertSchemaName(config.schema);
  const statementTimeout = config.statementTimeoutMs ?? 5_000;
  const pool = new pg.Pool({
    connectionString: config.url,
    max: config.max ?? 10,
    connectionTimeoutMillis: config.connectTimeoutMs ?? 1_500,
    idleTimeoutMillis: config.idleTimeoutMs ?? 10_000,
    statement_timeout: statementTimeout,
    // The client gives up shortly after the server would have; covers a peer that stopped answering.
    query_timeout: statementTimeout + 500,
    application_name: 'portico-enterprise',
    options: `-c search_path=${schema},public`,
    keepAlive: true,
  });
  // An idle client losing its connection (database restarted) is emitted here; without a listener it
  // would crash the process. The next checkout opens a fresh connection.
  pool.on('error', () => {});
  return pool;
}
