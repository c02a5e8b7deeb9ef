// `npm run bench`: POST /v1/payments (scenario success, demo latency 0) through the six parts as
// separate processes and through the all-in-one process (`npm start`'s entrypoint on DATABASE_URL
// and NATS_URL), with and without an Idempotency-Key, closed loop, open loop at half the closed
// loop, and one client at a time; every rate as a ratio to the same run's baseline (a bare Fastify
// route doing one durable Postgres insert); then messages per payment (statements and transactions
// per part, write system calls per part process). Prints figures; never passes or fails on them.
//
// `--only metrics-overhead` (or BENCH_ONLY=metrics-overhead) runs just the paired with/without
// Prometheus metrics measurement (metrics-overhead.ts), which the full run also ends with;
// `--only counts` just the messages per payment (statements, write calls, CPU), without the load runs.
// `--only in-process-calls` the all-in-one process with direct and router in-process calls
// (in-process-calls.ts), BENCH_OVERHEAD_PAIRS pairs.
//
// BENCH_ROOT=<another checkout> runs that checkout's build instead (its parts and its `pg`), so a
// before/after pair is two invocations a minute apart on the same machine state.
import { closedLoop, format, oneClient, openLoop, type Call, type Result } from './load.js';
import { countMessages, printCounts } from './message-counts.js';
import { inProcessCalls } from './in-process-calls.js';
import { metricsOverhead } from './metrics-overhead.js';
import { startAllInOne, type DeploymentTarget } from '../helpers/all-in-one-process.js';
import { freePort, spawnPart, waitForHttp } from '../helpers/processes.js';
import { newSplitMerchantKey, startSplitStack } from '../helpers/split-stack.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const ALL_IN_ONE_CLIENTS = Number(process.env.BENCH_ALL_IN_ONE_CLIENTS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const LATENCY_SECONDS = Math.max(3, Math.round(SECONDS / 2));
const WARMUP_SECONDS = 3;
const OVERHEAD_PAIRS = Number(process.env.BENCH_OVERHEAD_PAIRS ?? 2);
const onlyAt = process.argv.indexOf('--only');
const ONLY = onlyAt >= 0 ? process.argv[onlyAt + 1] : process.env.BENCH_ONLY;

const natsUrl = process.env.NATS_URL;
if (!process.env.DATABASE_URL || !natsUrl) {
  console.error('bench: set DATABASE_URL and NATS_URL (a real Postgres and NATS JetStream)');
  process.exit(2);
}

let keys = 0;
const paymentCall = (secret: string, keyed: boolean) => (): Call => ({
  method: 'POST', path: '/v1/payments',
  headers: {
    authorization: `Bearer ${secret}`, 'content-type': 'application/json',
    ...(keyed ? { 'idempotency-key': `bench-${process.pid}-${++keys}` } : {}),
  },
  body: JSON.stringify({ amount: 1000, currency: 'EUR', payment_method: 'card', test_scenario: 'success' }),
});

const rows: Array<{ label: string; result: Result; clients: number | string }> = [];
function record(label: string, result: Result, clients: number | string): Result {
  rows.push({ label, result, clients });
  console.log(format(label, result));
  return result;
}

async function baseline(label: string): Promise<{ closed: Result; closedAllInOne: Result; single: Result }> {
  const port = await freePort();
  const server = spawnPart('baseline', 'test/bench/baseline-server.js', {
    DATABASE_URL: process.env.DATABASE_URL!, PORT: String(port),
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(server, `${url}/`);
    const insert = (): Call => ({
      method: 'POST', path: '/insert', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1000, currency: 'EUR' }),
    });
    await closedLoop(url, insert, 201, CLIENTS, WARMUP_SECONDS);
    const closed = record(`${label}, ${CLIENTS} clients`, await closedLoop(url, insert, 201, CLIENTS, SECONDS), CLIENTS);
    const closedAllInOne = record(`${label}, ${ALL_IN_ONE_CLIENTS} clients`,
      await closedLoop(url, insert, 201, ALL_IN_ONE_CLIENTS, SECONDS), ALL_IN_ONE_CLIENTS);
    const single = record(`${label}, one client`, await oneClient(url, insert, 201, LATENCY_SECONDS), 1);
    return { closed, closedAllInOne, single };
  } finally {
    await server.stop();
  }
}

/** Closed loop without and with keys, open loop at half the unkeyed closed loop, one client. */
async function payments(target: DeploymentTarget, clients: number) {
  const plain = paymentCall(target.secret, false);
  const keyed = paymentCall(target.secret, true);
  await closedLoop(target.baseUrl, plain, 201, clients, WARMUP_SECONDS);
  const closed = record(`${target.name}, ${clients} clients`, await closedLoop(target.baseUrl, plain, 201, clients, SECONDS), clients);
  const withKeys = record(`${target.name}, ${clients} clients, Idempotency-Key`,
    await closedLoop(target.baseUrl, keyed, 201, clients, SECONDS), clients);
  const half = Math.max(1, Math.round(closed.perSecond / 2));
  const atHalf = record(`${target.name}, offered ${half}/s`, await openLoop(target.baseUrl, plain, 201, half, SECONDS), 'open');
  const single = record(`${target.name}, one client`, await oneClient(target.baseUrl, plain, 201, LATENCY_SECONDS), 1);
  return { closed, withKeys, atHalf, single };
}

const paired = { clients: ALL_IN_ONE_CLIENTS, seconds: SECONDS, warmup: WARMUP_SECONDS, pairs: OVERHEAD_PAIRS };
const overhead = () => metricsOverhead(natsUrl, paymentCall, paired);
const startSix = () => startSplitStack(natsUrl!, { RATE_LIMIT_PER_MINUTE: '10000000', LOG_LEVEL: 'error', DATABASE_POOL_SIZE: '10' });

/** Write calls per payment of the six part processes (countMessages.writes), on the stack's fresh tables. */
async function countWrites(split: Awaited<ReturnType<typeof startSix>>) {
  const pids = Object.fromEntries(split.parts.map((p) => [p.name, p.child.pid!]));
  await countMessages.writes(split.baseUrl, paymentCall(await newSplitMerchantKey(split), false), pids);
}

/** Write calls with the parts in processes of their own, statements with them in this one. */
async function counts() {
  const split = await startSix();
  try {
    await countWrites(split);
  } finally {
    await split.close();
  }
  printCounts(await countMessages.statements(natsUrl!, paymentCall));
}

if (ONLY === 'metrics-overhead') {
  await overhead();
  process.exit(0);
} else if (ONLY === 'in-process-calls') {
  await inProcessCalls(natsUrl, paymentCall, paired);
  process.exit(0);
} else if (ONLY === 'counts') {
  await counts();
  process.exit(0);
} else if (ONLY !== undefined) {
  console.error(`bench: --only knows metrics-overhead, in-process-calls and counts, not ${ONLY}`);
  process.exit(2);
}

console.log(`bench: ${SECONDS} s per run, node ${process.version}, build ${process.env.BENCH_ROOT ?? 'this checkout'}`);
const before = await baseline('baseline: Fastify + one Postgres insert');

const split = await startSix();
let six: Awaited<ReturnType<typeof payments>>;
try {
  // Counted first, on fresh tables: after the load runs, autovacuum's work would be charged to it.
  await countWrites(split);
  six = await payments({ name: 'six processes', baseUrl: split.baseUrl, secret: await newSplitMerchantKey(split) }, CLIENTS);
} finally {
  await split.close();
}

const aio = await startAllInOne(natsUrl);
let one: Awaited<ReturnType<typeof payments>>;
try {
  one = await payments(aio, ALL_IN_ONE_CLIENTS);
} finally {
  await aio.close();
}

const after = await baseline('baseline again');
printCounts(await countMessages.statements(natsUrl, paymentCall));

// The table: each rate against the mean of the two baselines around it.
const base = (before.closed.perSecond + after.closed.perSecond) / 2;
const baseAio = (before.closedAllInOne.perSecond + after.closedAllInOne.perSecond) / 2;
const baseP50 = (before.single.p50 + after.single.p50) / 2;
const ratio = (n: number, d: number) => (n / d).toFixed(3);
console.log(`
| | measured | ÷ baseline |
|---|---|---|
| baseline, ${CLIENTS} clients / ${ALL_IN_ONE_CLIENTS} clients / one client p50 | ${base.toFixed(0)}/s / ${baseAio.toFixed(0)}/s / ${baseP50.toFixed(2)} ms | |
| six processes, ${CLIENTS} clients | ${six.closed.perSecond.toFixed(0)}/s | ${ratio(six.closed.perSecond, base)} |
| all-in-one, ${ALL_IN_ONE_CLIENTS} clients | ${one.closed.perSecond.toFixed(0)}/s | ${ratio(one.closed.perSecond, baseAio)} |
| one client at a time, p50: six processes / all-in-one | ${six.single.p50.toFixed(1)} ms / ${one.single.p50.toFixed(1)} ms | ${(six.single.p50 / baseP50).toFixed(1)} × / ${(one.single.p50 / baseP50).toFixed(1)} × |
| six processes, p99 at half the closed loop | ${six.atHalf.p99.toFixed(1)} ms | |
| all-in-one, p99 at half the closed loop | ${one.atHalf.p99.toFixed(1)} ms | |
| Idempotency-Key on every request: six processes / all-in-one | ${six.withKeys.perSecond.toFixed(0)}/s / ${one.withKeys.perSecond.toFixed(0)}/s | ${ratio(six.withKeys.perSecond, base)} / ${ratio(one.withKeys.perSecond, baseAio)} |`);
const errors = rows.filter((r) => r.result.errors > 0);
for (const r of errors) console.log(`note: ${r.label} had ${r.result.errors} errors`);

await overhead();
