// `npm run bench`: payments/s and latency of POST /v1/payments (scenario success, demo latency 0)
// through the six parts as separate processes on real Postgres and NATS JetStream, next to the
// baseline of a bare Fastify route doing one Postgres insert per request. Prints figures; never
// passes or fails on them.
import { closedLoop, format, openLoop, type Call } from './load.js';
import { freePort, spawnPart, waitForHttp } from '../helpers/processes.js';
import { startSplitStack } from '../helpers/split-stack.js';
import { request } from '../helpers/stack.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARMUP_SECONDS = 3;

const natsUrl = process.env.NATS_URL;
if (!process.env.DATABASE_URL || !natsUrl) {
  console.error('bench: set DATABASE_URL and NATS_URL (a real Postgres and NATS JetStream)');
  process.exit(2);
}

const split = await startSplitStack(natsUrl, { RATE_LIMIT_PER_MINUTE: '10000000', LOG_LEVEL: 'error' });
try {
  const manage = (method: string, path: string, body?: unknown) =>
    request(split.baseUrl, method, `/manage/v1${path}`, { key: split.operatorToken, body });
  const merchant = await manage('POST', '/merchants', { name: 'Bench merchant' });
  const key = await manage('POST', `/projects/${merchant.body.project.id}/keys`, { mode: 'test', name: 'bench' });
  const headers = { authorization: `Bearer ${key.body.secret}`, 'content-type': 'application/json' };
  const payment: () => Call = () => ({
    method: 'POST', path: '/v1/payments', headers,
    body: JSON.stringify({ amount: 1000, currency: 'EUR', payment_method: 'card', test_scenario: 'success' }),
  });

  const baselinePort = await freePort();
  const baseline = spawnPart('baseline', 'test/bench/baseline-server.js', {
    DATABASE_URL: split.db.url, PORT: String(baselinePort),
  });
  const baselineUrl = `http://127.0.0.1:${baselinePort}`;
  await waitForHttp(baseline, `${baselineUrl}/`);
  const insert: () => Call = () => ({
    method: 'POST', path: '/insert', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 1000, currency: 'EUR' }),
  });

  console.log(`bench: ${CLIENTS} clients, ${SECONDS} s per run, node ${process.version}`);
  await closedLoop(baselineUrl, insert, 201, CLIENTS, WARMUP_SECONDS);
  const base = await closedLoop(baselineUrl, insert, 201, CLIENTS, SECONDS);
  console.log(format('baseline: Fastify + one Postgres insert', base));
  await baseline.stop();

  await closedLoop(split.baseUrl, payment, 201, CLIENTS, WARMUP_SECONDS);
  const pay = await closedLoop(split.baseUrl, payment, 201, CLIENTS, SECONDS);
  console.log(format('POST /v1/payments, six processes', pay));

  // Latency without queueing: at half of what the closed loop just sustained.
  const half = Math.max(1, Math.round(pay.perSecond / 2));
  const atHalf = await openLoop(split.baseUrl, payment, 201, half, SECONDS);
  console.log(format(`POST /v1/payments at ${half}/s (half the closed loop)`, atHalf));

  const quarter = Math.max(1, Math.round(base.perSecond / 4));
  const atQuarter = await openLoop(split.baseUrl, payment, 201, quarter, SECONDS);
  console.log(format(`POST /v1/payments at ${quarter}/s (baseline / 4)`, atQuarter));

  console.log(`payments/s ÷ baseline: ${(pay.perSecond / base.perSecond).toFixed(2)} (target ≥ 0.40)`);
  console.log(`p99 at a quarter of the baseline rate: ${atQuarter.p99.toFixed(1)} ms (target < 25 ms)`);
} finally {
  await split.close();
}
