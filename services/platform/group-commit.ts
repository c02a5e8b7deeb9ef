import { AsyncResource } from 'node:async_hooks';
import pg from 'pg';
import { createBatcher } from './batcher.js';
import { runAsOne, type Queryable, type Statement } from './db.js';

/**
 * Group commit: the writes of requests that arrive while an earlier commit is in flight are
 * written together, in one statement and so one implicit transaction and one WAL flush, instead of
 * a round trip and a commit each. Alone, a commit goes at once (no added wait); under load a batch
 * is whatever gathered during the previous one (createBatcher).
 *
 * Each caller hands the writes that must commit together (its own all-or-nothing unit, as runAsOne
 * takes them), optionally ending with a check: a SELECT that raises to refuse the unit (payments'
 * attempt-in-flight guard), which runs before the writes. The `INSERT ... VALUES ($1, ...), ...`
 * statements of all callers that share a table, column list and tail (`ON CONFLICT ...`) become
 * one `INSERT ... SELECT * FROM unnest($1::type[], ...)`, so the text is the same whatever the
 * batch's size and Postgres parses and plans it once per connection; other writes stay as they are.
 *
 * A batch is all or nothing, like each of its callers' units. When Postgres refuses it (an
 * idempotency key bound twice, a unique key, a deadlock), nothing of it was committed, so each
 * caller's unit is run again alone and gets exactly the result it would have had without company:
 * the conflicting caller its error, the others their commit. Any other failure (the connection
 * lost, when the commit may or may not have happened) fails every caller of the batch, as it would
 * fail a caller alone; retrying then could write a unit twice.
 */
export function createGroupCommit(db: Queryable, maxBatch = 64): (unit: Statement[]) => Promise<void> {
  const types = columnTypes(db);
  // Each unit runs in its caller's async context (its trace), a batch in its first caller's.
  const alone = (u: Unit) => u.caller.runInAsyncScope(() => outcomeOf(runAsOne(db, u.statements)));
  const write = createBatcher(async (units: Unit[]): Promise<Array<unknown | undefined>> => {
    if (units.length === 1) return [await alone(units[0])];
    try {
      const writes = units.flatMap((u) => u.statements.filter((s) => WRITE.test(s.text)));
      const checks = mergedChecks(units.map((u) => u.statements.at(-1)!).filter((s) => !WRITE.test(s.text)));
      const statements = [...merged(writes, await types(writes)), ...checks];
      await units[0].caller.runInAsyncScope(() => runAsOne(db, statements));
      return units.map(() => undefined);
    } catch (err) {
      if (!refusedByPostgres(err)) return units.map(() => err ?? new Error('batch failed'));
      return Promise.all(units.map(alone));
    }
  }, maxBatch);
  return async (statements) => {
    const check = statements.at(-1);
    if (!statements.slice(0, -1).every((s) => WRITE.test(s.text))) throw new Error('group commit takes writes and a last check only');
    // A check whose parameters are not all text cannot be unnested: it commits alone, as before.
    if (check && !WRITE.test(check.text) && !check.values.every((v) => typeof v === 'string')) return runAsOne(db, statements);
    const failure = await write({ statements, caller: new AsyncResource('svc.group-commit') });
    if (failure !== undefined) throw failure;
  };
}

/** A caller's writes, and where it called from. */
interface Unit {
  statements: Statement[];
  caller: AsyncResource;
}

// A SELECT as a CTE would not run unless referenced: only writes become CTEs; a unit's check is
// the statement's main query, which Postgres runs before any of the CTEs' writes.
const WRITE = /^\s*(INSERT|UPDATE|DELETE)\b/i;

/**
 * Every unit's check in one main query, run before any write of the batch: per distinct check text,
 * its parameters as text arrays and the check once per row, each row's value read so none is
 * skipped. A check that refuses (raises) refuses the batch, and so only its own unit alone.
 */
function mergedChecks(checks: Statement[]): Statement[] {
  if (checks.length === 0) return [];
  const byText = new Map<string, unknown[][]>();
  for (const c of checks) byText.set(c.text, [...(byText.get(c.text) ?? []), c.values]);
  const values: unknown[] = [];
  const parts = [...byText].map(([text, rows]) => {
    const arity = rows[0].length;
    const params = Array.from({ length: arity }, (_, i) => {
      values.push(rows.map((r) => r[i]));
      return `$${values.length}::text[]`;
    });
    const names = Array.from({ length: arity }, (_, i) => `p${i + 1}`);
    const perRow = text.replace(/\$(\d+)/g, (_, n: string) => `v.p${n}`);
    return `(SELECT count(c.*) FROM unnest(${params.join(', ')}) AS v(${names.join(', ')}) CROSS JOIN LATERAL (${perRow}) AS c)`;
  });
  return [{ text: `SELECT ${parts.join(', ')}`, values }];
}

/** undefined once the write committed, its error otherwise. */
const outcomeOf = (p: Promise<void>): Promise<unknown | undefined> => p.then(() => undefined, (err) => err ?? new Error('failed'));

/**
 * Postgres answered the statement with an ERROR: it and its implicit transaction were rolled
 * back. A FATAL error, a lost connection or a time-out leave the commit's fate unknown.
 */
export function refusedByPostgres(err: unknown): boolean {
  return err instanceof pg.DatabaseError && err.severity === 'ERROR';
}

/** An `INSERT INTO t (columns) VALUES (params), ... tail` whose every value is a parameter. */
interface ParsedInsert {
  table: string;
  columns: string[];
  /** Each row's parameter numbers, in column order. */
  rows: number[][];
  tail: string;
}

const INSERT = /^\s*INSERT\s+INTO\s+([\w.]+)\s*\(([^)]*)\)\s*VALUES\s*((?:\(\s*\$\d+(?:\s*,\s*\$\d+)*\s*\)\s*,?\s*)+)(.*)$/is;
const parsedTexts = new Map<string, ParsedInsert | null>();
const MAX_PARSED_TEXTS = 1000;

function parseInsert(text: string): ParsedInsert | null {
  let parsed = parsedTexts.get(text);
  if (parsed !== undefined) return parsed;
  const m = INSERT.exec(text);
  const columns = m?.[2].split(',').map((c) => c.trim()) ?? [];
  const rows = m ? [...m[3].matchAll(/\(([^)]*)\)/g)].map((t) => t[1].split(',').map((p) => Number(p.trim().slice(1)))) : [];
  // A tail with parameters of its own would differ per caller; such an insert is kept as it is.
  parsed = m && !/\$\d/.test(m[4]) && rows.every((r) => r.length === columns.length)
    ? { table: m[1], columns, rows, tail: m[4].trim() }
    : null;
  if (parsedTexts.size >= MAX_PARSED_TEXTS) parsedTexts.clear();
  parsedTexts.set(text, parsed);
  return parsed;
}

/** Column → type name of a table, read once per table; null for a table it cannot find. */
type ColumnTypes = Map<string, { type: string; isArray: boolean }>;

function columnTypes(db: Queryable) {
  const byTable = new Map<string, Promise<ColumnTypes | null>>();
  const read = async (table: string): Promise<ColumnTypes | null> => {
    const { rows } = await db.query(
      `SELECT a.attname, format_type(a.atttypid, a.atttypmod) AS type, t.typcategory = 'A' AS is_array
       FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
       WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`,
      [table],
    );
    return rows.length === 0 ? null : new Map(rows.map((r) => [r.attname, { type: r.type, isArray: r.is_array }]));
  };
  /** The types of every table the statements insert into. */
  return async (statements: Statement[]): Promise<Map<string, ColumnTypes | null>> => {
    const tables = new Set(statements.map((s) => parseInsert(s.text)?.table).filter((t): t is string => !!t));
    const result = new Map<string, ColumnTypes | null>();
    for (const table of tables) {
      let types = byTable.get(table);
      if (!types) byTable.set(table, (types = read(table).catch((err) => { byTable.delete(table); throw err; })));
      result.set(table, await types);
    }
    return result;
  };
}

/**
 * The statements as fewer: the inserts of one table, column list and tail as one unnest insert
 * (in the order each kind first appears); any other write, or an insert whose values unnest
 * cannot carry (an array column or value), as it is.
 */
function merged(statements: Statement[], types: Map<string, ColumnTypes | null>): Statement[] {
  const kinds = new Map<string, { insert: ParsedInsert; columnTypes: string[]; rows: unknown[][] } | Statement>();
  statements.forEach((s, i) => {
    const insert = parseInsert(s.text);
    const tableTypes = insert && types.get(insert.table);
    const columnTypes = insert && tableTypes && insert.columns.map((c) => tableTypes.get(c));
    const rows = insert?.rows.map((r) => r.map((n) => s.values[n - 1]));
    if (!insert || !columnTypes || columnTypes.some((t) => !t || t.isArray) || rows!.some((r) => r.some(Array.isArray))) {
      kinds.set(`as is ${i}`, s);
      return;
    }
    const key = `${insert.table}(${insert.columns.join(',')})${insert.tail}`;
    const kind = kinds.get(key);
    if (kind && 'rows' in kind) kind.rows.push(...rows!);
    else kinds.set(key, { insert, columnTypes: columnTypes.map((t) => t!.type), rows: rows! });
  });
  return [...kinds.values()].map((k) => ('rows' in k ? unnestInsert(k.insert, k.columnTypes, k.rows) : k));
}

function unnestInsert(insert: ParsedInsert, columnTypes: string[], rows: unknown[][]): Statement {
  const arrays = columnTypes.map((t, i) => `$${i + 1}::${t}[]`).join(', ');
  return {
    text: `INSERT INTO ${insert.table} (${insert.columns.join(', ')}) SELECT * FROM unnest(${arrays}) ${insert.tail}`.trim(),
    values: insert.columns.map((_, c) => rows.map((r) => r[c] ?? null)),
  };
}
