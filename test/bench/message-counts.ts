import { request as httpRequest } from 'undici';
import {
  countPgStatements, cpuGroups, cpuOf, perPaymentPg, snapshotPg, socketSendsBetween, socketSendsOf, writeCallsOf, type PgCounts,
} from './counts.js';
import type { Call } from './load.js';
import { startInProcessStack } from './in-process-stack.js';
import { projectPath } from '../../services/platform/paths.js';

const PAYMENTS = Number(process.env.BENCH_COUNT_PAYMENTS ?? 200);
// Long enough for the relay, the ledger and webhooks to finish with the last payment's events.
const SETTLE_MS = 1500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function sequential(baseUrl: string, call: () => Call): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < PAYMENTS; i++) {
    const c = call();
    const res = await httpRequest(`${baseUrl}${c.path}`, { method: c.method, headers: c.headers, body: c.body });
    await res.body.dump();
    if (res.statusCode !== 201) throw new Error(`payment answered ${res.statusCode}`);
  }
  await sleep(SETTLE_MS);
  return performance.now() - started;
}

export interface MessageCounts {
  /** Postgres statements (round trips) and transactions per payment, by part. */
  pg: Map<string, PgCounts>;
  /** The same with an Idempotency-Key on every request. */
  keyedPg?: Map<string, PgCounts>;
  /** Socket writes (TCP data segments sent) per payment, by part process (six processes). */
  writes?: Record<string, number>;
  /** Write system calls per payment, by part process: socket writes plus event-loop wake-ups and log lines. */
  writeCalls?: Record<string, number>;
  /** CPU ms per payment, by part process, Postgres (the database's backends) and the NATS server (six processes). */
  cpu?: Record<string, number>;
}

const collected: MessageCounts = { pg: new Map() };

export const countMessages = {
  /** Socket writes, write calls and CPU per payment of each process, minus an idle period as long. */
  async writes(baseUrl: string, call: () => Call, pids: Record<string, number>, databaseUrl: string): Promise<MessageCounts> {
    // Postgres backends come and go with the pools; those of the run are there by its end.
    await sequential(baseUrl, call);
    const groups = await cpuGroups(pids, databaseUrl);
    const snapshot = async () => ({ sends: await socketSendsOf(pids), calls: await writeCallsOf(pids), cpu: await cpuOf(groups) });
    const s0 = await snapshot();
    const ms = await sequential(baseUrl, call);
    const s1 = await snapshot();
    await sleep(ms);
    const s2 = await snapshot();
    const per = (busy: Record<string, number>, idle: Record<string, number>) =>
      Object.fromEntries(Object.keys(busy).map((k) => [k, (busy[k] - idle[k]) / PAYMENTS]));
    const between = (a: Record<string, number>, b: Record<string, number>) =>
      Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - a[k]]));
    collected.writes = per(socketSendsBetween(s0.sends, s1.sends), socketSendsBetween(s1.sends, s2.sends));
    collected.writeCalls = per(between(s0.calls, s1.calls), between(s1.calls, s2.calls));
    collected.cpu = per(between(s0.cpu, s1.cpu), between(s1.cpu, s2.cpu));
    return collected;
  },

  /**
   * Statements and transactions per payment of each part, with the six parts in this process
   * (the same code as in their own processes) on a fresh database and stream.
   */
  async statements(natsUrl: string, call: (secret: string, keyed: boolean) => () => Call): Promise<MessageCounts> {
    const root = process.env.BENCH_ROOT ?? projectPath();
    const counter = await countPgStatements(root);
    const stack = await startInProcessStack(root, natsUrl);
    try {
      const { secret } = stack;
      for (const keyed of [false, true]) {
        await sequential(stack.baseUrl, call(secret, keyed));
        const c0 = snapshotPg(counter);
        const ms = await sequential(stack.baseUrl, call(secret, keyed));
        const c1 = snapshotPg(counter);
        await sleep(ms);
        const idle = perPaymentPg(c1, snapshotPg(counter), new Map(), 1);
        const counts = perPaymentPg(c0, c1, idle, PAYMENTS);
        if (!keyed) collected.pg = counts;
        else collected.keyedPg = counts;
      }
    } finally {
      await stack.close();
    }
    return collected;
  },
};

/** Socket writes per payment of all the part processes together; undefined when not counted. */
export function totalWrites(counts: MessageCounts | undefined): number | undefined {
  return counts?.writes && Object.values(counts.writes).reduce((s, n) => s + n, 0);
}

export function printCounts(counts: MessageCounts): void {
  const parts = ['gateway', 'payments', 'routing_risk', 'ledger', 'payouts', 'webhooks'];
  const cell = (m: Map<string, PgCounts> | undefined, p: string, k: keyof PgCounts) => (m?.get(p)?.[k] ?? 0).toFixed(1);
  const sum = (m: Map<string, PgCounts> | undefined, k: keyof PgCounts) => [...(m?.values() ?? [])].reduce((s, c) => s + c[k], 0);
  console.log(`\nMessages per payment (${PAYMENTS} sequential payments, idle background subtracted):`);
  console.log('| part | statements | transactions | statements, keyed | socket writes (own process) | write calls (own process) |');
  console.log('|---|---|---|---|---|---|');
  for (const p of parts) {
    const proc = p.replace('_', '-');
    console.log(`| ${proc} | ${cell(counts.pg, p, 'statements')} | ${cell(counts.pg, p, 'transactions')} | ${cell(counts.keyedPg, p, 'statements')} | ${counts.writes?.[proc]?.toFixed(1) ?? '—'} | ${counts.writeCalls?.[proc]?.toFixed(1) ?? '—'} |`);
  }
  const writes = totalWrites(counts) ?? 0;
  const calls = Object.values(counts.writeCalls ?? {}).reduce((s, n) => s + n, 0);
  const cpu = Object.entries(counts.cpu ?? {}).map(([p, ms]) => `${p} ${ms.toFixed(2)}`).join(', ');
  const cpuTotal = Object.values(counts.cpu ?? {}).reduce((s, n) => s + n, 0);
  console.log(`| all | ${sum(counts.pg, 'statements').toFixed(1)} | ${sum(counts.pg, 'transactions').toFixed(1)} | ${sum(counts.keyedPg, 'statements').toFixed(1)} | ${writes.toFixed(1)} | ${calls.toFixed(1)} |`);
  console.log(`\nCPU ms per sequential payment, six processes (10 ms ticks): ${cpu}; all ${cpuTotal.toFixed(2)}`);
}
