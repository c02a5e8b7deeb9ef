import { AsyncResource } from 'node:async_hooks';
import pg from 'pg';
import { createBatcher } from './batcher.js';
import { prepared, type Queryable } from './db.js';
import { rowKey, statementOf, type Unit } from './row-writes.js';

/**
 * Group commit: the rows of requests that arrive while an earlier commit is in flight are written
 * together, in one statement and so one implicit transaction and one WAL flush, instead of a round
 * trip and a commit each. Alone, a commit goes at once (no added wait); under load a batch is
 * whatever gathered during the previous one (createBatcher).
 *
 * Each caller hands a unit (row-writes.ts): the typed rows that must commit together, optionally
 * with a check that runs before them and may refuse the unit (payments' attempt-in-flight guard).
 * One statement cannot change one row twice, so a batch is cut wherever a unit touches a row an
 * earlier unit of it touches: the parts are written one after the other, in call order, and both
 * changes apply, in order.
 *
 * A statement is all or nothing, like each of its units. When Postgres refuses it (an idempotency
 * key bound twice, a unique key, a deadlock), nothing of it was committed, so each unit is run
 * again alone and gets exactly the result it would have had without company: the conflicting one
 * its error, the others their commit. Any other failure (the connection lost, when the commit may
 * or may not have happened) fails every unit of the statement, as it would fail a unit alone;
 * retrying then could write a unit twice.
 */
export function createGroupCommit(db: Queryable, maxBatch = 64): (unit: Unit) => Promise<void> {
  // Each unit runs in its caller's async context (its trace), a statement in its first unit's.
  const run = (units: Waiting[]) => units[0].caller.runInAsyncScope(async () => {
    const { text, values } = statementOf(units.map((u) => u.unit));
    await db.query(prepared(text, values));
  });
  const alone = (u: Waiting) => outcomeOf(run([u]));
  const together = async (units: Waiting[]): Promise<Array<unknown | undefined>> => {
    if (units.length === 1) return [await alone(units[0])];
    try {
      await run(units);
      return units.map(() => undefined);
    } catch (err) {
      if (!refusedByPostgres(err)) return units.map(() => err ?? new Error('batch failed'));
      return Promise.all(units.map(alone));
    }
  };
  const write = createBatcher(async (units: Waiting[]) => {
    const outcomes: Array<unknown | undefined> = [];
    for (const part of apart(units)) outcomes.push(...(await together(part)));
    return outcomes;
  }, maxBatch);
  return async (unit) => {
    const keys = unit.rows.map(rowKey);
    if (new Set(keys).size !== keys.length) throw new Error('a unit writes one row twice');
    const failure = await write({ unit, keys, caller: new AsyncResource('svc.group-commit') });
    if (failure !== undefined) throw failure;
  };
}

/** A caller's unit, and where it called from. */
interface Waiting {
  unit: Unit;
  /** The rows it touches (rowKey). */
  keys: string[];
  caller: AsyncResource;
}

/** The units in call order, cut before each one that touches a row already touched in its part. */
function apart(units: Waiting[]): Waiting[][] {
  const parts: Waiting[][] = [];
  let touched = new Set<string>();
  for (const u of units) {
    if (parts.length === 0 || u.keys.some((k) => touched.has(k))) {
      parts.push([]);
      touched = new Set();
    }
    parts.at(-1)!.push(u);
    for (const k of u.keys) touched.add(k);
  }
  return parts;
}

/** undefined once the write committed, its error otherwise. */
const outcomeOf = (p: Promise<unknown>): Promise<unknown | undefined> => p.then(() => undefined, (err) => err ?? new Error('failed'));

/**
 * Postgres answered the statement with an ERROR: it and its implicit transaction were rolled
 * back. A FATAL error, a lost connection or a time-out leave the commit's fate unknown.
 */
export function refusedByPostgres(err: unknown): boolean {
  return err instanceof pg.DatabaseError && err.severity === 'ERROR';
}
