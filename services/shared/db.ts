import pg from 'pg';

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
/** Anything that runs a query: the pool or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'>;

const INT8_OID = 20;

// int8 (bigint) columns hold minor-unit amounts: parse them as BigInt, never as floats.
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID) return (value: string) => BigInt(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/** One pool per part, pinned to the part's own schema so it cannot read another's tables. */
export function createPool(databaseUrl: string, schema: string, max = 10): Pool {
  if (!/^[a-z_]+$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    options: `-c search_path=${schema}`,
    types: types as pg.CustomTypesConfig,
  });
  // An idle client's connection dropped (database restart or failover): the pool discards
  // that client and the next query connects afresh. Unhandled, the event would crash the part.
  pool.on('error', () => undefined);
  return pool;
}

export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * A CTE that lets its statement's transaction commit without waiting for the WAL flush. For
 * records whose loss in a database crash is harmless (a rate-limit count) or covered: a later
 * synchronous commit on the same server flushes all earlier WAL, so once the payment that
 * follows a routing decision is durable, the decision is too. The statement must reference it.
 */
export const ASYNC_COMMIT_CTE = "async_commit AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)";
