import type { QueryResult } from 'pg';
import { prepared, type Queryable } from './db.js';

/**
 * Writes as typed rows of declared tables, never as SQL text: a store declares each table it
 * writes (its columns with their Postgres types, the key that names a row, what a write does to a
 * row that exists) and hands rows; the statement is built here from those declarations, with every
 * value a parameter. Rows of one table go as one `INSERT ... SELECT ... FROM unnest($1::type[], ...)`
 * (or `UPDATE ... FROM unnest(...)`) whatever their number, so one text serves one row or a batch
 * of them and Postgres parses and plans it once per connection.
 */

export interface Column {
  name: string;
  /** The column's Postgres type, as the parameter array is cast to (`text`, `bigint`, `jsonb`...). */
  type: string;
  /** The value given is a delay in seconds; the row stores the database's now() plus it (no process clock). */
  secondsAfterNow?: true;
}

export interface TableShape {
  table: string;
  columns: readonly Column[];
  /** The columns whose values name one row: two writes with equal values here touch the same row. */
  key: readonly string[];
  /**
   * insert: a row that exists fails the statement (its unique key); insertOrKeep: it stays as it
   * is; upsert: its `set` columns take the new values; update: only existing rows, their `set` columns.
   */
  write: 'insert' | 'insertOrKeep' | 'upsert' | 'update';
  set?: readonly string[];
}

/** One row to write: its table's shape and its values in the shape's column order. */
export interface RowWrite {
  shape: TableShape;
  values: readonly unknown[];
}

/**
 * A query run once per row before any write of the statement, over the row's values as `v.<column>`,
 * which may lock rows and raise to refuse the whole statement (payments' attempt-in-flight guard).
 */
export interface CheckShape {
  columns: readonly Column[];
  sql: string;
}

export interface CheckRow {
  shape: CheckShape;
  values: readonly unknown[];
}

/** What must commit together, all or nothing: rows and at most one check that runs first. */
export interface Unit {
  rows: readonly RowWrite[];
  check?: CheckRow;
}

export function row(shape: TableShape, values: readonly unknown[]): RowWrite {
  if (values.length !== shape.columns.length) throw new Error(`${shape.table}: ${values.length} values for ${shape.columns.length} columns`);
  return { shape, values };
}

// What is built from a shape alone is built once: the positions of its key columns, and each
// statement's text by the shapes it writes (the values are parameters, so the text never varies).
const keyPositions = new WeakMap<TableShape, number[]>();
const shapeIds = new WeakMap<TableShape | CheckShape, number>();
let lastShapeId = 0;
const texts = new Map<string, string>();
// Shapes are declared once per store; should a caller make them per call, the texts stop being kept.
const MAX_TEXTS = 500;

/** The name of the row a write touches, equal for two writes of one row. */
export function rowKey({ shape, values }: RowWrite): string {
  let positions = keyPositions.get(shape);
  if (!positions) {
    positions = shape.key.map((k) => shape.columns.findIndex((c) => c.name === k));
    keyPositions.set(shape, positions);
  }
  let key = shape.table;
  for (const i of positions) key += `\u0000${String(values[i])}`;
  return key;
}

/**
 * The units' rows and checks as one statement: each table's rows one write, the checks the main
 * query (Postgres runs it before the unreferenced data-modifying CTEs), or without checks the last
 * write. Two rows of one table and key would be two changes of one row in one statement, of which
 * Postgres applies one at most: refused here, the group commit splits its batches so none come.
 */
export function statementOf(units: readonly Unit[]): { text: string; values: unknown[] } {
  const seen = new Set<string>();
  const byShape = new Map<TableShape, RowWrite[]>();
  for (const unit of units) {
    for (const r of unit.rows) {
      const key = rowKey(r);
      if (seen.has(key)) throw new Error(`two writes of one row of ${r.shape.table} in one statement`);
      seen.add(key);
      const rows = byShape.get(r.shape);
      if (rows) rows.push(r);
      else byShape.set(r.shape, [r]);
    }
  }
  const checks = new Map<CheckShape, CheckRow[]>();
  for (const { check } of units) {
    if (!check) continue;
    const rows = checks.get(check.shape);
    if (rows) rows.push(check);
    else checks.set(check.shape, [check]);
  }
  // One parameter per column, its values one per row, in the order textOf numbers them.
  const values: unknown[] = [];
  for (const [shape, rows] of [...byShape, ...checks] as Array<[TableShape | CheckShape, Array<{ values: readonly unknown[] }>]>) {
    shape.columns.forEach((c, i) => {
      const column = rows.map((r) => r.values[i]);
      values.push(c.type === 'jsonb' ? jsonDocument(column) : arrayLiteral(column, c.type) ?? column.map((v) => v ?? null));
    });
  }
  return { text: textOf([...byShape.keys()], [...checks.keys()]), values };
}

/**
 * A jsonb column's values as one JSON document, `[[v1], null, [v3]]` (null: SQL NULL), rather than
 * a Postgres array literal: node-postgres would escape every quote of every value into that
 * literal, the largest allocation of a payment's writes. A value given as a string is JSON text,
 * as in a jsonb[] literal.
 */
function jsonDocument(column: readonly unknown[]): string {
  const items = column.map((v) => (v === null || v === undefined ? 'null' : `[${typeof v === 'string' ? v : JSON.stringify(v)}]`));
  return `[${items.join(',')}]`;
}

/**
 * A column's values as a Postgres array literal, `{"a","b \"c\"",NULL,7}`, built in one join:
 * node-postgres builds it by concatenating element after element and runs two replaces over every
 * string, which after jsonb was the largest allocation of a payment's writes. Undefined for a
 * value it does not write (an object, a buffer, a time for a column other than timestamptz):
 * node-postgres then converts the array as it always did.
 */
export function arrayLiteral(column: readonly unknown[], type: string): string | undefined {
  const items = new Array<string>(column.length);
  for (let i = 0; i < column.length; i++) {
    const v = column[i];
    if (v === null || v === undefined) items[i] = 'NULL';
    else if (typeof v === 'string') items[i] = QUOTE_OR_BACKSLASH.test(v) ? `"${v.replace(QUOTES_AND_BACKSLASHES, '\\$&')}"` : `"${v}"`;
    else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') items[i] = String(v);
    else if (v instanceof Date && type === 'timestamptz' && !Number.isNaN(v.getTime())) items[i] = v.toISOString();
    else return undefined;
  }
  return `{${items.join(',')}}`;
}

const QUOTE_OR_BACKSLASH = /["\\]/;
const QUOTES_AND_BACKSLASHES = /["\\]/g;

/** jsonDocument's parameter back as a jsonb[] in row order, for unnest to zip with the other columns. */
const jsonbArray = (n: number) =>
  `ARRAY(SELECT CASE WHEN jsonb_typeof(j.e) = 'null' THEN NULL ELSE j.e -> 0 END FROM jsonb_array_elements($${n}::jsonb) WITH ORDINALITY AS j(e, i) ORDER BY j.i)`;

function idOf(shape: TableShape | CheckShape): number {
  let id = shapeIds.get(shape);
  if (id === undefined) {
    id = ++lastShapeId;
    shapeIds.set(shape, id);
  }
  return id;
}

/**
 * Each table's rows one write, the checks the main query (Postgres runs it before the
 * unreferenced data-modifying CTEs), or without checks the last write; built once per list of shapes.
 */
function textOf(shapes: readonly TableShape[], checkShapes: readonly CheckShape[]): string {
  const key = `${shapes.map(idOf).join(',')}|${checkShapes.map(idOf).join(',')}`;
  const known = texts.get(key);
  if (known !== undefined) return known;
  let n = 0;
  /** `$n::type[]` of each column, bound as the nth parameter (a jsonb column's as jsonDocument's). */
  const arrays = (columns: readonly Column[]) => columns.map((c) => (c.type === 'jsonb' ? jsonbArray(++n) : `$${++n}::${c.type}[]`)).join(', ');
  const writes = shapes.map((shape) => writeSql(shape, arrays(shape.columns)));
  const checkSql = checkShapes.map((shape) =>
    `(SELECT count(c.*) FROM unnest(${arrays(shape.columns)}) AS v(${names(shape.columns)}) CROSS JOIN LATERAL (${shape.sql}) AS c)`);
  const main = checkSql.length > 0 ? `SELECT ${checkSql.join(', ')}` : writes.pop();
  if (main === undefined) throw new Error('nothing to write');
  const text = writes.length === 0 ? main : `WITH ${writes.map((w, i) => `w${i} AS (${w})`).join(', ')} ${main}`;
  if (texts.size < MAX_TEXTS) texts.set(key, text);
  return text;
}

/** Writes the rows (and check) as one statement, so one implicit transaction: all or none apply. */
export function writeRows(db: Queryable, rows: readonly RowWrite[], check?: CheckRow): Promise<QueryResult> {
  const { text, values } = statementOf([{ rows, check }]);
  // It returns no columns (or the checks' counts), so a prepared plan cannot fail on a changed result shape.
  return db.query(prepared(text, values));
}

const names = (columns: readonly Column[]) => columns.map((c) => c.name).join(', ');

function writeSql(shape: TableShape, arrays: string): string {
  const source = `unnest(${arrays}) AS v(${names(shape.columns)})`;
  const set = (from: string) => (shape.set ?? []).map((c) => `${c} = ${from}.${c}`).join(', ');
  if (shape.write === 'update') {
    const match = shape.key.map((k) => `t.${k} = v.${k}`).join(' AND ');
    return `UPDATE ${shape.table} AS t SET ${set('v')} FROM ${source} WHERE ${match}`;
  }
  const selected = shape.columns.map((c) => (c.secondsAfterNow ? `now() + make_interval(secs => v.${c.name})` : `v.${c.name}`));
  const insert = `INSERT INTO ${shape.table} (${names(shape.columns)}) SELECT ${selected.join(', ')} FROM ${source}`;
  if (shape.write === 'insert') return insert;
  const target = `ON CONFLICT (${shape.key.join(', ')})`;
  return shape.write === 'insertOrKeep' ? `${insert} ${target} DO NOTHING` : `${insert} ${target} DO UPDATE SET ${set('EXCLUDED')}`;
}
