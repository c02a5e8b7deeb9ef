// `npm run bench`: POST /v1/payments (scenario success, demo latency 0) through the six parts as
// separate processes and through the all-in-one process (`npm start`'s entrypoint on DATABASE_URL
// and NATS_URL), with and without an Idempotency-Key, closed loop, open loop at half the closed
// loop, and one client at a time; the webhooks burst to 4 endpoints (webhooks.ts); the baseline (a
// bare Fastify route doing one durable Postgres insert) before and after them all; messages per
// payment (statements and transactions per part, write system calls and CPU per part process); the
// metrics-overhead pairs; then the per-part CPU budget against what each part spends
// (cpu-budget.ts) and, last, its targets table, every figure against the same run's baseline
// (targets.ts). Prints figures; never passes or fails on them.
//
// `--only metrics-overhead` (or BENCH_ONLY=metrics-overhead) runs just the paired with/without
// Prometheus metrics measurement (metrics-overhead.ts), which the full run also runs (unless
// BENCH_OVERHEAD_PAIRS=0) before its tables;
// `--only counts` just the messages per payment (statements, socket writes and write calls, CPU), without the load runs.
// `--only in-process-calls` the all-in-one process with direct and router in-process calls
// (in-process-calls.ts), BENCH_OVERHEAD_PAIRS pairs; `--only workers` `npm start` as one process and as
// one worker per core (workers.ts), BENCH_OVERHEAD_PAIRS pairs. `--only targets` the loads, the webhooks burst,
// the budget (under load only) and the targets table, without the counts and the overhead pairs.
//
// BENCH_ROOT=<another checkout> runs that checkout's build instead (its parts and its `pg`), so a
// before/after pair is two invocations a minute apart on the same machine state; only the spawned
// entries (parts, baseline server, webhooks part) come from it, this checkout's harness drives them.
import { closedLoop, format, oneClient, openLoop, type Call, type Result } from './load.js';
import { countMessages, printCounts, totalWrites, type MessageCounts } from './message-counts.js';
import { cpuGroups } from './counts.js';
import { printBudget, spendDuring, type Spend } from './cpu-budget.js';
import { baselineInsert, startBaseline } from './baseline.js';
import { baselineRate, printTargets, type Baseline, type ModeFigures } from './targets.js';
import { webhooksBench } from './webhooks.js';
import { inProcessCalls } from './in-process-calls.js';
import { workers } from './workers.js';
import { metricsOverhead } from './metrics-overhead.js';
import { startAllInOne, type DeploymentTarget } from '../helpers/all-in-one-process.js';
import { newSplitMerchantKey, startSplitStack } from '../helpers/split-stack.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const ALL_IN_ONE_CLIENTS = Number(process.env.BENCH_ALL_IN_ONE_CLIENTS ?? 16);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const LATENCY_SECONDS = Math.max(3, Math.round(SECONDS / 2));
const WARMUP_SECONDS = 3;
const OVERHEAD_PAIRS = Number(process.env.BENCH_OVERHEAD_PAIRS ?? 2);
// Half bench:webhooks's burst: 20,000 deliveries, over ten seconds of them at today's ~1,500/s.
const WEBHOOK_EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
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

async function baseline(label: string): Promise<Baseline> {
  const { url, process: server } = await startBaseline(process.env.DATABASE_URL!);
  try {
    await closedLoop(url, baselineInsert, 201, CLIENTS, WARMUP_SECONDS);
    const closed = record(`${label}, ${CLIENTS} clients`, await closedLoop(url, baselineInsert, 201, CLIENTS, SECONDS), CLIENTS);
    const closedAllInOne = record(`${label}, ${ALL_IN_ONE_CLIENTS} clients`,
      await closedLoop(url, baselineInsert, 201, ALL_IN_ONE_CLIENTS, SECONDS), ALL_IN_ONE_CLIENTS);
    const single = record(`${label}, one client`, await oneClient(url, baselineInsert, 201, LATENCY_SECONDS), 1);
    return { closed, closedAllInOne, single };
  } finally {
    await server.stop();
  }
}

/**
 * Closed loop without and with keys, open loop at half the unkeyed closed loop, one client; with
 * `groupsOf`, the CPU each group of processes spends per payment over the unkeyed closed loop
 * (the groups taken after the warm-up, which opens the pools' connections).
 */
async function payments(
  target: DeploymentTarget, clients: number, groupsOf?: () => Promise<Record<string, number[]>>,
): Promise<ModeFigures & { spend?: Spend }> {
  const plain = paymentCall(target.secret, false);
  const keyed = paymentCall(target.secret, true);
  await closedLoop(target.baseUrl, plain, 201, clients, WARMUP_SECONDS);
  const load = () => closedLoop(target.baseUrl, plain, 201, clients, SECONDS);
  const { result, spend } = groupsOf ? await spendDuring(groupsOf, load) : { result: await load(), spend: undefined };
  const closed = record(`${target.name}, ${clients} clients`, result, clients);
  const withKeys = record(`${target.name}, ${clients} clients, Idempotency-Key`,
    await closedLoop(target.baseUrl, keyed, 201, clients, SECONDS), clients);
  const half = Math.max(1, Math.round(closed.perSecond / 2));
  const atHalf = record(`${target.name}, offered ${half}/s`, await openLoop(target.baseUrl, plain, 201, half, SECONDS), 'open');
  const single = record(`${target.name}, one client`, await oneClient(target.baseUrl, plain, 201, LATENCY_SECONDS), 1);
  return { closed, withKeys, atHalf, single, spend };
}

const paired = { clients: ALL_IN_ONE_CLIENTS, seconds: SECONDS, warmup: WARMUP_SECONDS, pairs: OVERHEAD_PAIRS };
const overhead = () => metricsOverhead(natsUrl, paymentCall, paired);
// OUTBOX_PACK: a deployment whose consumers all run this version (a build without it ignores it).
const startSix = () => startSplitStack(natsUrl!, { RATE_LIMIT_PER_MINUTE: '10000000', LOG_LEVEL: 'error', DATABASE_POOL_SIZE: '10', OUTBOX_PACK: 'true' });

type Split = Awaited<ReturnType<typeof startSix>>;
const pidsOf = (split: Split) => Object.fromEntries(split.parts.map((p) => [p.name, p.child.pid!]));

/** Socket writes, write calls and CPU per payment of the six part processes (countMessages.writes), on the stack's fresh tables. */
async function countWrites(split: Split): Promise<MessageCounts> {
  return countMessages.writes(split.baseUrl, paymentCall(await newSplitMerchantKey(split), false), pidsOf(split), split.db.url);
}

/** Socket writes with the parts in processes of their own, statements with them in this one. */
async function counts() {
  const split = await startSix();
  try {
    await countWrites(split);
  } finally {
    await split.close();
  }
  printCounts(await countMessages.statements(natsUrl!, paymentCall));
}

/** The burst to 4 endpoints; a build under BENCH_ROOT whose webhooks part cannot run it costs only this figure. */
async function webhooks(): Promise<number | undefined> {
  try {
    const [burst] = await webhooksBench(natsUrl!, { burst: WEBHOOK_EVENTS, endpoints: [4] });
    return burst.perSecond;
  } catch (err) {
    console.log(`webhooks burst not measured: ${(err as Error).message}`);
    return undefined;
  }
}

/**
 * Baseline, six processes (socket writes and CPU counted first, on fresh tables, when `counted`:
 * after the load runs autovacuum's work would be charged to it), all-in-one, webhooks, baseline again.
 */
async function loads(counted: boolean) {
  console.log(`bench: ${SECONDS} s per run, node ${process.version}, build ${process.env.BENCH_ROOT ?? 'this checkout'}`);
  const before = await baseline('baseline: Fastify + one Postgres insert');
  const split = await startSix();
  let six: Awaited<ReturnType<typeof payments>>;
  let sequential: MessageCounts | undefined;
  try {
    if (counted) sequential = await countWrites(split);
    const target = { name: 'six processes', baseUrl: split.baseUrl, secret: await newSplitMerchantKey(split) };
    six = await payments(target, CLIENTS, () => cpuGroups(pidsOf(split), split.db.url));
  } finally {
    await split.close();
  }
  const aio = await startAllInOne(natsUrl);
  let allInOne: ModeFigures;
  try {
    allInOne = await payments(aio, ALL_IN_ONE_CLIENTS);
  } finally {
    await aio.close();
  }
  const webhooksPerSecond = await webhooks();
  const after = await baseline('baseline again');
  return { baselines: [before, after], six, allInOne, webhooksPerSecond, sequential };
}

/** The budget, then the targets table: the end of the output. */
function printTables(run: Awaited<ReturnType<typeof loads>>): void {
  for (const r of rows.filter((row) => row.result.errors > 0)) console.log(`note: ${r.label} had ${r.result.errors} errors`);
  printBudget(baselineRate(run.baselines), { sequential: run.sequential?.cpu, underLoad: run.six.spend });
  printTargets({
    baselines: run.baselines, clients: { six: CLIENTS, allInOne: ALL_IN_ONE_CLIENTS },
    six: run.six, allInOne: run.allInOne, webhooks: run.webhooksPerSecond,
    writes: totalWrites(run.sequential),
  });
}

if (ONLY === 'metrics-overhead') {
  await overhead();
} else if (ONLY === 'in-process-calls') {
  await inProcessCalls(natsUrl, paymentCall, paired);
} else if (ONLY === 'workers') {
  await workers(natsUrl, paymentCall, paired);
} else if (ONLY === 'counts') {
  await counts();
} else if (ONLY === 'targets') {
  printTables(await loads(false));
} else if (ONLY !== undefined) {
  console.error(`bench: --only knows metrics-overhead, in-process-calls, workers, counts and targets, not ${ONLY}`);
  process.exit(2);
} else {
  const run = await loads(true);
  printCounts(await countMessages.statements(natsUrl, paymentCall));
  if (OVERHEAD_PAIRS > 0) await overhead();
  printTables(run);
}
process.exit(0);
