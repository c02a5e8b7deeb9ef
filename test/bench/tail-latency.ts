// `npm run bench:tail`: what a payment's p99 waits for. For the six processes and `npm start`'s
// process, the closed loop first, then an open loop at falling fractions of its rate, each with how
// busy the machine was, the CPU each group of processes spent per payment, and how often the part
// processes' event loops were woken per payment: a p99 that falls with the machine's busy share,
// not with our code's, is the payment waiting for a core; a payment that costs more CPU at a lower
// rate costs it in wake-ups, each of which runs on cold caches (npm run bench:cold).
// Printed, never judged by exit code.
import { readFile } from 'node:fs/promises';
import { cpuGroups } from './counts.js';
import { spendDuring } from './cpu-budget.js';
import { closedLoop, openLoop, type Call, type Result } from './load.js';
import { wakeupsOf, wakeupsPerRequest } from '../helpers/wakeups.js';
import { startAllInOne } from '../helpers/all-in-one-process.js';
import { newSplitMerchantKey, startSplitStack } from '../helpers/split-stack.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const FRACTIONS = (process.env.BENCH_TAIL_FRACTIONS ?? '0.5,0.35,0.2').split(',').map(Number);
const P99_MS = 40;

const natsUrl = process.env.NATS_URL;
if (!process.env.DATABASE_URL || !natsUrl) {
  console.error('bench:tail: set DATABASE_URL and NATS_URL (a real Postgres and NATS JetStream)');
  process.exit(2);
}

const paymentCall = (secret: string) => (): Call => ({
  method: 'POST', path: '/v1/payments',
  headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
  body: JSON.stringify({ amount: 1000, currency: 'EUR', payment_method: 'card', test_scenario: 'success' }),
});

/** Busy and total jiffies of the whole machine so far (/proc/stat's first line). */
async function machineTicks(): Promise<{ busy: number; total: number }> {
  const fields = (await readFile('/proc/stat', 'utf8')).split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3] - fields[4], total };
}

interface Row { fraction: number; result: Result; busy: number; cpu: Record<string, number>; wakeups: number }

/** One run of `load`: its result, the machine's busy share, CPU ms and part wake-ups per payment. */
async function measured(
  groups: () => Promise<Record<string, number[]>>, parts: Record<string, number>, load: () => Promise<Result>,
): Promise<Omit<Row, 'fraction'>> {
  const m0 = await machineTicks();
  const w0 = await wakeupsOf(parts);
  const { result, spend: cpu } = await spendDuring(groups, load);
  const w1 = await wakeupsOf(parts);
  const m1 = await machineTicks();
  return { result, cpu, busy: (m1.busy - m0.busy) / (m1.total - m0.total), wakeups: wakeupsPerRequest(w0, w1, result.requests) };
}

function printRow(offered: string, fraction: string, { result, busy, cpu, wakeups }: Omit<Row, 'fraction'>): void {
  const all = Object.values(cpu).reduce((a, b) => a + b, 0);
  console.log(`| ${offered} | ${fraction} | ${result.p50.toFixed(1)} ms | ${result.p99.toFixed(1)} ms | ${(busy * 100).toFixed(0)} % | ` +
    `${Object.values(cpu).map((v) => v.toFixed(2)).join(', ')} | ${all.toFixed(2)} | ${wakeups.toFixed(1)} |`);
}

/**
 * `groups` lists each group's processes anew at each reading: the pool's Postgres backends come and
 * go within a run. `parts` are the processes whose event-loop wake-ups are counted.
 */
async function sweep(
  label: string, baseUrl: string, secret: string, clients: number,
  groups: () => Promise<Record<string, number[]>>, parts: Record<string, number>,
) {
  const call = paymentCall(secret);
  await closedLoop(baseUrl, call, 201, clients, 3);
  const closed = await measured(groups, parts, () => closedLoop(baseUrl, call, 201, clients, SECONDS));
  console.log(`\n${label}: closed loop, ${clients} clients: ${closed.result.perSecond.toFixed(0)}/s`);
  const names = Object.keys(await groups());
  console.log('| offered | of the closed loop | p50 | p99 | machine busy | CPU ms per payment: ' + names.join(', ') + ' | all | wake-ups per payment |');
  console.log(`|---|---|---|---|---|---|---|---|`);
  printRow(`${clients} clients`, 'closed loop', closed);
  const rows: Row[] = [];
  for (const fraction of FRACTIONS) {
    const rate = Math.max(1, Math.round(closed.result.perSecond * fraction));
    const row = { fraction, ...(await measured(groups, parts, () => openLoop(baseUrl, call, 201, rate, SECONDS))) };
    rows.push(row);
    printRow(`${rate}/s`, String(fraction), row);
  }
  const met = rows.filter((r) => r.result.p99 <= P99_MS).sort((a, b) => b.fraction - a.fraction)[0];
  console.log(met
    ? `${label}: p99 ≤ ${P99_MS} ms from ${met.fraction} of the closed loop down, the machine ${(met.busy * 100).toFixed(0)} % busy there`
    : `${label}: p99 above ${P99_MS} ms at every fraction measured`);
}

const bench = { bench: [process.pid] };
const split = await startSplitStack(natsUrl, { RATE_LIMIT_PER_MINUTE: '10000000', LOG_LEVEL: 'error', DATABASE_POOL_SIZE: '10', OUTBOX_PACK: 'true' });
try {
  const pids = Object.fromEntries(split.parts.map((p) => [p.name, p.child.pid!]));
  await sweep('six processes', split.baseUrl, await newSplitMerchantKey(split), 50, async () => ({ ...(await cpuGroups(pids, split.db.url)), ...bench }), pids);
} finally {
  await split.close();
}
const aio = await startAllInOne(natsUrl);
try {
  const parts = { 'all-in-one': aio.process.child.pid! };
  const groups = async () => ({ ...(await cpuGroups(parts, aio.databaseUrl)), ...bench });
  await sweep('all-in-one', aio.baseUrl, aio.secret, 16, groups, parts);
} finally {
  await aio.close();
}
