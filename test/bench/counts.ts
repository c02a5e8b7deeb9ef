import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Messages per payment, counted rather than timed: Postgres statements and transactions per part
// (by wrapping node-postgres's Client.query in this process, which runs the parts in-process), and
// write system calls per part process (from /proc/<pid>/io, which counts every write and writev:
// socket sends, plus the odd log line and event-loop wake-up). Each count is taken over a run of
// sequential payments and the time the asynchronous work after them takes, minus the same
// parts' counts over an equally long idle period, so background polling is not charged to payments.

export interface PgCounts {
  statements: number;
  transactions: number;
}

type Counter = Map<string, PgCounts>;

interface CountedClient {
  connectionParameters?: { options?: string };
  __svcInTransaction?: boolean;
}

/**
 * Wraps the `pg` module of the build under `root` (its own node_modules copy), so every pool the
 * parts create counts into the returned map, keyed by the part's schema (its search_path).
 */
export async function countPgStatements(root: string): Promise<Counter> {
  const pg = (await import(pathToFileURL(join(root, 'node_modules/pg/lib/index.js')).href)).default;
  const counts: Counter = new Map();
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: CountedClient, config: unknown, ...rest: unknown[]) {
    const text = typeof config === 'string' ? config : (config as { text?: string })?.text ?? '';
    const schema = /search_path=(\w+)/.exec(this.connectionParameters?.options ?? '')?.[1] ?? 'other';
    const c = counts.get(schema) ?? { statements: 0, transactions: 0 };
    counts.set(schema, c);
    c.statements++;
    const verb = text.trimStart().slice(0, 8).toUpperCase();
    if (verb.startsWith('BEGIN')) {
      this.__svcInTransaction = true;
      c.transactions++;
    } else if (verb.startsWith('COMMIT') || verb.startsWith('ROLLBACK')) {
      this.__svcInTransaction = false;
    } else if (!this.__svcInTransaction) {
      c.transactions++;
    }
    return original.call(this, config, ...rest);
  };
  return counts;
}

export function snapshotPg(counts: Counter): Counter {
  return new Map([...counts].map(([k, v]) => [k, { ...v }]));
}

/** (after − before) − idle, per part, divided by n. */
export function perPaymentPg(before: Counter, after: Counter, idle: Counter, n: number): Map<string, PgCounts> {
  const parts = new Set([...after.keys(), ...idle.keys()]);
  const out = new Map<string, PgCounts>();
  for (const p of parts) {
    const d = (k: keyof PgCounts) => ((after.get(p)?.[k] ?? 0) - (before.get(p)?.[k] ?? 0) - (idle.get(p)?.[k] ?? 0)) / n;
    out.set(p, { statements: d('statements'), transactions: d('transactions') });
  }
  return out;
}

export function diffPg(before: Counter, after: Counter): Counter {
  return perPaymentPg(before, after, new Map(), 1);
}

/** Write system calls the process has made so far (Linux only; 0 elsewhere). */
export async function writeCalls(pid: number): Promise<number> {
  const text = await readFile(`/proc/${pid}/io`, 'utf8').catch(() => '');
  return Number(/^syscw:\s*(\d+)/m.exec(text)?.[1] ?? 0);
}

export async function writeCallsOf(pids: Record<string, number>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [name, pid] of Object.entries(pids)) out[name] = await writeCalls(pid);
  return out;
}
