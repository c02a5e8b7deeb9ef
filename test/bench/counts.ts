import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

// Messages per payment, counted rather than timed: Postgres statements and transactions per part
// (by wrapping node-postgres's Client.query in this process, which runs the parts in-process), and
// socket writes per part process (the data segments its TCP connections sent; /proc/<pid>/io's
// write calls also count event-loop wake-ups and log lines, and are shown beside). Each count is taken over a run of
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

/** Per process, per TCP connection (local>peer): data segments it has sent so far. */
export type SocketSends = Record<string, Map<string, number>>;

/**
 * The data segments each process's TCP connections have sent (`ss -tinp`'s data_segs_out; Linux
 * only, empty elsewhere): on loopback with Nagle off each socket write is one, and unlike
 * /proc's syscw it leaves out the eventfd writes by which V8 and libuv wake an event loop (a
 * garbage collection can post hundreds in a second) and log lines.
 */
export async function socketSendsOf(pids: Record<string, number>): Promise<SocketSends> {
  const { execFile } = await import('node:child_process');
  const text = await new Promise<string>((resolve) => {
    execFile('ss', ['-tinpH'], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => resolve(err ? '' : stdout));
  });
  const names = new Map(Object.entries(pids).map(([name, pid]) => [pid, name]));
  const out: SocketSends = Object.fromEntries(Object.keys(pids).map((n) => [n, new Map<string, number>()]));
  const lines = text.split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    const pid = Number(/pid=(\d+),/.exec(lines[i])?.[1]);
    const name = names.get(pid);
    const sent = /data_segs_out:(\d+)/.exec(lines[i + 1]);
    if (!name || !sent) continue;
    const [, , , local, peer] = lines[i].trim().split(/\s+/);
    out[name].set(`${local}>${peer}`, Number(sent[1]));
  }
  return out;
}

/**
 * Segments sent between two snapshots, per process. A connection opened in between counts from
 * zero; one closed in between is missed (the parts' pools and peers keep theirs open).
 */
export function socketSendsBetween(before: SocketSends, after: SocketSends): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([name, sockets]) => [
    name, [...sockets].reduce((sum, [key, n]) => sum + n - (before[name]?.get(key) ?? 0), 0),
  ]));
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

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU time (user + system) the process has used so far, in ms (Linux only; 0 elsewhere). */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) * TICK_MS;
}

/** CPU of `pid` and its children (`npm start`'s workers): what the whole deployment spends. */
export async function treeCpuMs(pid: number): Promise<number> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  const pids = [pid, ...children.trim().split(/\s+/).filter(Boolean).map(Number)];
  return (await Promise.all(pids.map(cpuMs))).reduce((a, b) => a + b, 0);
}

/** Pids of every process whose command name is `comm` (all Postgres backends, the NATS server). */
export async function pidsNamed(comm: string): Promise<number[]> {
  const { readdir } = await import('node:fs/promises');
  const pids: number[] = [];
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const name = (await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '')).trim();
    if (name === comm) pids.push(Number(entry));
  }
  return pids;
}

/** CPU ms so far of each named group of processes. */
export async function cpuOf(groups: Record<string, number[]>): Promise<Record<string, number>> {
  const byProcess = await cpuByProcess(groups);
  return Object.fromEntries(Object.entries(byProcess).map(([name, pids]) => [name, [...pids.values()].reduce((a, b) => a + b, 0)]));
}

/** CPU ms so far of each process of each group, by pid. */
export async function cpuByProcess(groups: Record<string, number[]>): Promise<Record<string, Map<number, number>>> {
  const out: Record<string, Map<number, number>> = {};
  for (const [name, pids] of Object.entries(groups)) {
    out[name] = new Map();
    for (const pid of pids) out[name].set(pid, await cpuMs(pid));
  }
  return out;
}

/**
 * CPU each group spent between two readings whose processes were listed anew (a pool opens
 * Postgres backends as its load grows): a process first seen in the later reading counts from its
 * start, one gone by then counts nothing (its last CPU can no longer be read).
 */
export function cpuSpentBetween(
  before: Record<string, Map<number, number>>, after: Record<string, Map<number, number>>,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, pids] of Object.entries(after)) {
    out[name] = 0;
    for (const [pid, ms] of pids) out[name] += Math.max(0, ms - (before[name]?.get(pid) ?? 0));
  }
  return out;
}

/**
 * Pids of the Postgres processes serving `databaseUrl`'s database, and its server's background
 * processes (WAL writer, checkpointer, ...): not every process named postgres, since other
 * servers (a test suite's embedded Postgres) and other databases run on the same machine.
 */
export async function postgresPidsOf(databaseUrl: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
       WHERE (datname = current_database() OR datname IS NULL) AND pid <> pg_backend_pid()`,
    );
    return rows.map((r) => r.pid);
  } finally {
    await client.end();
  }
}

/** The CPU groups of a run: each part process, the database's Postgres processes, the NATS server. */
export async function cpuGroups(parts: Record<string, number>, databaseUrl: string): Promise<Record<string, number[]>> {
  return {
    ...Object.fromEntries(Object.entries(parts).map(([name, pid]) => [name, [pid]])),
    postgres: await postgresPidsOf(databaseUrl), nats: await pidsNamed('nats-server'),
  };
}
