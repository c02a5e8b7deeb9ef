import pg from 'pg';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './config.js';
import { lostConnection } from './db-errors.js';
import { SpanKind, inSpan, inTrace, tracingOn } from './tracing.js';

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

/**
 * One pool per part, pinned to the part's own schema so it cannot read another's tables. Nothing
 * waits on Postgres unbounded: a connection (or a free client) within connectMs, an answer within
 * queryMs (a socket whose packets are dropped never answers), and Postgres itself cancels a
 * statement past statementMs and ends a transaction left idle past idleInTransactionMs.
 */
export function createPool(
  databaseUrl: string, schema: string, max = 10, timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
): Pool {
  if (!/^[a-z_]+$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max,
    // JIT off: every statement of the service is short, and Postgres compiles one whose estimate
    // passes jit_above_cost (a fresh table's guesses do) for 25–450 ms of a core, measured.
    options: `-c search_path=${schema} -c jit=off`,
    types: types as pg.CustomTypesConfig,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.queryMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: timeouts.keepAliveDelayMs,
  });
  // An idle client's connection dropped (database restart or failover): the pool discards
  // that client and the next query connects afresh. Unhandled, the event would crash the part.
  pool.on('error', () => undefined);
  if (tracingOn()) traceQueries(pool, schema);
  return pool;
}

// The schema of each pool whose statements are spans (only pools made while tracing is on).
const tracedPools = new WeakMap<pg.Pool, string>();

/**
 * While tracing is on, each pool.query is a CLIENT span, and so is each statement on a
 * transaction's client (withTransaction).
 */
function traceQueries(pool: pg.Pool, schema: string): void {
  tracedPools.set(pool, schema);
  (pool as { query: unknown }).query = spanned(pool.query.bind(pool), schema);
}

/**
 * A query function whose statements are spans. The text is parameterised, so it carries no values.
 * Only statements of a traced request or event: the relay's and health checks' polling would
 * otherwise be a trace of its own several times a second. The callback form is passed through.
 */
function spanned(query: (...args: never[]) => unknown, schema: string) {
  return (...args: unknown[]) => {
    if (!inTrace() || typeof args[args.length - 1] === 'function') return query(...(args as never[]));
    const text = typeof args[0] === 'string' ? args[0] : String((args[0] as pg.QueryConfig)?.text ?? '');
    const verb = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
    return inSpan(`${verb} ${schema}`, SpanKind.CLIENT, {
      'db.system.name': 'postgresql', 'db.namespace': schema, 'db.query.text': text.slice(0, 2000),
    }, () => query(...(args as never[])) as Promise<unknown>);
  };
}

/**
 * Whether Postgres answers `SELECT 1` within `timeoutMs`, for health checks. A connection that
 * hangs (packets dropped, not refused) counts as down once the time is up.
 */
export async function pingDatabase(pool: Pool, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answered = pool.query({ text: 'SELECT 1', query_timeout: timeoutMs } as pg.QueryConfig).then(() => true, () => false);
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A client checked out of the pool, and its release. While a client is checked out the pool no
 * longer listens for its errors, so a connection lost between two statements (Postgres restarted,
 * a proxy cut, the client awaiting another part mid-transaction) would be an unhandled 'error'
 * event and crash the part. The listener keeps that error, the next statement fails as it should,
 * and release() hands it to the pool, which then destroys the client instead of reusing it.
 */
export async function checkOut(pool: Pool): Promise<{ client: PoolClient; release(failure?: unknown): void }> {
  const client = await pool.connect();
  let lost: Error | undefined;
  const onLost = (err: Error) => { lost = err; };
  client.on('error', onLost);
  return {
    client,
    /** `failure`: what the last statement threw; a connection it says is dead or stuck is destroyed too. */
    release(failure?: unknown) {
      client.off('error', onLost);
      client.release(lost ?? (lostConnection(failure) ? (failure as Error) : undefined));
    },
  };
}

/** Runs fn in one transaction on a client of the pool: committed if it resolves, rolled back if it throws. */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const { client, release } = await checkOut(pool);
  // A pooled client outlives its checkout: its statements are spans only for this transaction.
  const schema = tracingOn() ? tracedPools.get(pool) : undefined;
  if (schema) (client as { query: unknown }).query = spanned(client.query.bind(client), schema);
  let failure: unknown;
  try {
    return await transactionOn(client, () => fn(client));
  } catch (err) {
    failure = err;
    throw err;
  } finally {
    if (schema) delete (client as { query?: unknown }).query;
    release(failure);
  }
}

/**
 * The same on a client the caller already holds, for work that must stay in one session around
 * the transaction (migrate's advisory lock). Everything else uses withTransaction.
 */
export async function transactionOn<T>(client: PoolClient, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    // On a dead or stuck connection a ROLLBACK would wait out another query timeout: the caller
    // destroys the client instead, and Postgres rolls back a transaction whose session ended.
    if (!lostConnection(err)) await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

// Names of prepared statements, by text: one set per process, so per connection of its pools.
const preparedNames = new Map<string, string>();
// Texts built per call (a multi-row insert's, a list's filters) would each take a name, and every
// connection would keep every one: past this many, statements run unnamed as before.
const MAX_PREPARED_STATEMENTS = 200;

/**
 * A query that Postgres parses and plans once per connection instead of on every call (a third
 * of a hot statement's cost, measured). Only for statements whose result columns are spelled out
 * or that return none: a prepared statement whose result would change shape after a migration
 * (`SELECT *` of a table that gained a column) fails rather than re-plans.
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = preparedNames.get(text);
  if (name === undefined && preparedNames.size < MAX_PREPARED_STATEMENTS) {
    name = `svc_${preparedNames.size + 1}`;
    preparedNames.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}

/**
 * A CTE that lets its statement's transaction commit without waiting for the WAL flush. For
 * records whose loss in a database crash is harmless (a rate-limit count, routing-risk's
 * decisions, written after their answer: the payment keeps their summary, docs/routing.md) or
 * covered (a later synchronous commit on the same server flushes all earlier WAL). The statement
 * must reference it.
 */
export const ASYNC_COMMIT_CTE = "async_commit AS (SELECT set_config('synchronous_commit', 'off', true) AS setting)";
