// `npm run bench:webhooks`: webhook deliveries/s and latency from an event's commit to its first
// attempt's arrival, through the whole path: a producer's outbox commit, the relay to JetStream,
// the webhooks part as its own process (consumer, fan-out, dispatcher), a local receiver answering
// 200. Prints figures; never passes or fails on them. `npm run bench` imports webhooksBench for its
// burst to 4 endpoints. Each burst also prints the CPU per delivery of the part, of the bench's own
// process (the producer and the receiver), of Postgres and of NATS; with BENCH_PROFILE_DIR the part
// is profiled over each burst and its CPU split by who could change it (cpu-breakdown.ts).
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { createClient } from '@connectrpc/connect';
import { WebhooksService } from '../../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { JetStreamBus } from '../../services/platform/bus/index.js';
import { createPool, withTransaction } from '../../services/platform/db.js';
import { newId } from '../../services/platform/ids.js';
import { newInternalToken } from '../../services/platform/internal-callers.js';
import { createLogger } from '../../services/platform/logger.js';
import { migrate } from '../../services/platform/migrate.js';
import { OutboxRelay, enqueueEvent } from '../../services/platform/outbox.js';
import { createPeerTransport } from '../../services/platform/rpc.js';
import { type EventEnvelope } from '../../services/contract/index.js';
import { deleteStream } from '../helpers/bus.js';
import { createTestDatabase } from '../helpers/database.js';
import { freePort, spawnPart, waitForHealth } from '../helpers/processes.js';
import { serveLoopback } from '../helpers/stand-in-server.js';
import { projectPath } from '../../services/platform/paths.js';
import { cpuByProcess, cpuGroups, cpuSpentBetween } from './counts.js';
import { breakdownOfFile, OWNERS } from './cpu-breakdown.js';

const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;

/** Burst sizes and endpoint counts to run, and optionally the open loop after them. */
export interface WebhooksRun {
  burst: number;
  endpoints: readonly number[];
  steady?: { rate: number; seconds: number };
}

/** One burst: every delivery's arrival counted, from the first commit to the last arrival. */
export interface BurstFigure {
  endpoints: number;
  deliveries: number;
  seconds: number;
  perSecond: number;
}

type Scope = { merchantId: string; projectId: string; mode: string };

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The receiver: every arrival counted, the first arrival of each event timed against its commit. */
async function startReceiver() {
  const tally = { arrivals: 0, lastArrival: 0, latencies: [] as number[], committedAt: new Map<string, number>() };
  const receiver = await serveLoopback((req, res) => {
    const now = performance.now();
    tally.arrivals++;
    tally.lastArrival = now;
    const id = String(req.headers['svc-event-id']);
    const committed = tally.committedAt.get(id);
    if (committed !== undefined) {
      tally.latencies.push(now - committed);
      tally.committedAt.delete(id);
    }
    res.writeHead(200).end();
  });
  receiver.server.keepAliveTimeout = 60_000;
  return { receiver, tally };
}

/** The bench plays a producing part (an outbox in its own schema, relayed as payments relays) before the webhooks part. */
async function startRig(natsUrl: string) {
  const { receiver, tally } = await startReceiver();
  const db = await createTestDatabase();
  const suffix = newId('evt').slice(-8);
  const stream = `SVC_BENCH_${suffix}`;
  const subjectPrefix = `svcbench.${suffix}`;
  const logger = createLogger('bench', 'error');
  const bus = await JetStreamBus.connect({ url: natsUrl, stream, subjectPrefix, logger, name: 'bench' });
  const pool = createPool(db.url, 'payments', 10);
  await migrate(pool, 'payments', 'services/payments');
  const relay = new OutboxRelay({ pool, bus, logger, subjectPrefix, pollMs: 50 });
  relay.start();
  const grpcPort = await freePort();
  const internalToken = newInternalToken();
  const part = spawnPart('webhooks', 'services/webhooks/main.js', {
    DATABASE_URL: db.url, NATS_URL: natsUrl, NATS_STREAM: stream, NATS_SUBJECT_PREFIX: subjectPrefix,
    HOST: '127.0.0.1', GRPC_PORT: String(grpcPort), LOG_LEVEL: 'error', INTERNAL_TOKEN: internalToken,
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    // The endpoints share the receiver's host, which the part paces to 200 attempts/s by default (a
    // guard against amplifying traffic at one host, host-pacer.ts): at its maximum the pace is
    // 0.1 ms apart, so the burst measures the delivery path, not the guard.
    WEBHOOK_HOST_RATE_PER_SECOND: '10000',
    // Node refuses --cpu-prof in NODE_OPTIONS: the preload starts and writes V8's profile on SIGUSR2.
    ...(PROFILE_DIR ? { NODE_OPTIONS: `--import ${projectPath('dist', 'test', 'bench', 'profile-preload.js')}`, BENCH_PROFILE_DIR: PROFILE_DIR } : {}),
  });
  const webhooksUrl = `http://127.0.0.1:${grpcPort}`;
  const close = async () => {
    await relay.stop();
    await part.stop();
    await bus.close();
    await pool.end();
    await receiver.close();
    await deleteStream(natsUrl, stream).catch(() => undefined);
    await db.drop();
  };
  try {
    await waitForHealth(part, webhooksUrl);
  } catch (err) {
    await close();
    throw err;
  }
  const client = createClient(WebhooksService, createPeerTransport(webhooksUrl, internalToken));
  // Listed anew at each reading: the part's pool opens backends as the burst grows.
  const groups = () => cpuGroups({ webhooks: part.child.pid!, bench: process.pid }, db.url);
  return { receiver, tally, pool, relay, client, close, pid: part.child.pid!, groups };
}

type Rig = Awaited<ReturnType<typeof startRig>>;

async function scopeWith(rig: Rig, endpoints: number): Promise<Scope> {
  const scope = { merchantId: newId('mer'), projectId: newId('prj'), mode: 'test' };
  for (let i = 0; i < endpoints; i++) {
    await rig.client.createEndpoint({ scope, url: `${rig.receiver.baseUrl}/hooks/${i}`, events: ['*'] });
  }
  return scope;
}

const eventOf = (scope: Scope): EventEnvelope => ({
  id: newId('evt'), type: 'payment.successful', mode: scope.mode, merchant_id: scope.merchantId,
  project_id: scope.projectId, created_at: new Date().toISOString(),
  data: { object: { id: newId('pay'), object: 'payment', amount: 1000, currency: 'EUR', status: 'successful' } },
});

/** Commits `count` events, `perCommit` to a transaction, `parallel` producers at once. */
async function burst(rig: Rig, scope: Scope, count: number, perCommit: number, parallel: number): Promise<void> {
  let made = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (made < count) {
      const events = Array.from({ length: Math.min(perCommit, count - made) }, () => eventOf(scope));
      made += events.length;
      await withTransaction(rig.pool, async (tx) => {
        for (const e of events) await enqueueEvent(tx, e);
      });
      const at = performance.now();
      for (const e of events) rig.tally.committedAt.set(e.id, at);
      rig.relay.kick();
    }
  }));
}

async function waitArrivals(rig: Rig, target: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (rig.tally.arrivals < target && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

function reset(rig: Rig): void {
  rig.tally.arrivals = 0;
  rig.tally.latencies.length = 0;
  rig.tally.committedAt.clear();
}

function summary(rig: Rig, label: string): string {
  const sorted = [...rig.tally.latencies].sort((a, b) => a - b);
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  return `${label.padEnd(48)} p50 ${ms(percentile(sorted, 50))}  p95 ${ms(percentile(sorted, 95))}  ` +
    `p99 ${ms(percentile(sorted, 99))}  max ${ms(sorted.at(-1) ?? 0)}  (${sorted.length} events timed)`;
}

/** What the sender measured: the HTTP attempt alone, and the wait from fan-out to the attempt. */
async function attemptFigures(rig: Rig, projectId: string): Promise<string> {
  const { rows } = await rig.pool.query(
    `SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a.duration_ms) AS http_p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY a.duration_ms) AS http_p99,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM a.started_at - d.created_at) * 1000) AS wait_p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM a.started_at - d.created_at) * 1000) AS wait_p99
     FROM webhooks.delivery_attempts a JOIN webhooks.deliveries d ON d.id = a.delivery_id WHERE d.project_id = $1`,
    [projectId],
  );
  const r = rows[0];
  return `  sender: HTTP attempt p50 ${Number(r.http_p50).toFixed(1)} ms, p99 ${Number(r.http_p99).toFixed(1)} ms; ` +
    `stored -> attempt started p50 ${Number(r.wait_p50).toFixed(1)} ms, p99 ${Number(r.wait_p99).toFixed(1)} ms`;
}

/** `count` events to a fresh scope with `endpoints` endpoints, as fast as the producers commit. */
async function burstTo(rig: Rig, endpoints: number, count: number): Promise<BurstFigure> {
  reset(rig);
  const scope = await scopeWith(rig, endpoints);
  const cpuBefore = await cpuByProcess(await rig.groups());
  if (PROFILE_DIR) process.kill(rig.pid, 'SIGUSR2');
  const started = performance.now();
  await burst(rig, scope, count, 100, 4);
  const committed = performance.now();
  await waitArrivals(rig, count * endpoints, 180_000);
  if (PROFILE_DIR) process.kill(rig.pid, 'SIGUSR2');
  const spent = cpuSpentBetween(cpuBefore, await cpuByProcess(await rig.groups()));
  const { arrivals } = rig.tally;
  const seconds = (rig.tally.lastArrival - started) / 1000;
  console.log(`burst of ${count} events x ${endpoints} endpoint(s): committed in ${((committed - started) / 1000).toFixed(1)} s; ` +
    `${arrivals} deliveries in ${seconds.toFixed(1)} s = ${(arrivals / seconds).toFixed(0)} deliveries/s`);
  console.log(summary(rig, `  commit -> first arrival (burst, ${endpoints} endpoint(s))`));
  console.log(await attemptFigures(rig, scope.projectId));
  const perDelivery = Object.fromEntries(Object.entries(spent).map(([g, ms]) => [g, ms / arrivals]));
  console.log(`  CPU ms per delivery: ${Object.entries(perDelivery).map(([g, ms]) => `${g} ${ms.toFixed(3)}`).join(', ')}`);
  if (PROFILE_DIR) await printPartBreakdown(rig.pid, perDelivery);
  return { endpoints, deliveries: arrivals, seconds, perSecond: arrivals / seconds };
}

/**
 * The part's CPU by who could change it, and what a delivery would still cost the part, Postgres
 * and NATS if the project's own code cost nothing (the bench's producer and receiver left out).
 */
async function printPartBreakdown(pid: number, perDelivery: Record<string, number>): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the profile is written
  const { share } = breakdownOfFile(`${PROFILE_DIR}/main-${pid}.cpuprofile`);
  console.log(`  webhooks part's CPU: ${OWNERS.map((o) => `${o} ${(100 * share[o]).toFixed(1)} %`).join(', ')}`);
  const outside = perDelivery.webhooks * (1 - share.ours) + perDelivery.postgres + perDelivery.nats;
  const cores = availableParallelism();
  console.log(`  without the project's own code: ${outside.toFixed(3)} ms per delivery (part, Postgres, NATS), `
    + `at most ${((cores * 1000) / outside).toFixed(0)} deliveries/s on ${cores} cores`);
}

/** One event every 1/rate seconds to one endpoint, committed one to a transaction. */
async function openLoop(rig: Rig, rate: number, seconds: number): Promise<void> {
  reset(rig);
  const scope = await scopeWith(rig, 1);
  const total = rate * seconds;
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(burst(rig, scope, 1, 1, 1));
  }
  await Promise.all(pending);
  await waitArrivals(rig, total, 60_000);
  console.log(summary(rig, `open loop: ${rate} events/s for ${seconds} s, 1 endpoint`));
  console.log(`targets: >= 2000 deliveries/s in a burst; p99 < 100 ms at ${rate} events/s`);
}

/**
 * Starts a receiver, a producing outbox and the webhooks part (BENCH_ROOT's build, as every part the
 * benches spawn), warms up, runs the bursts then the open loop, prints each, returns the bursts' figures.
 */
export async function webhooksBench(natsUrl: string, run: WebhooksRun): Promise<BurstFigure[]> {
  if (PROFILE_DIR) await mkdir(PROFILE_DIR, { recursive: true });
  const rig = await startRig(natsUrl);
  try {
    console.log(`bench: webhooks part as its own process, node ${process.version}; Postgres and NATS from the environment`);
    await burst(rig, await scopeWith(rig, 1), 500, 50, 4);
    await waitArrivals(rig, 500, 60_000);
    const figures: BurstFigure[] = [];
    for (const endpoints of run.endpoints) figures.push(await burstTo(rig, endpoints, run.burst));
    if (run.steady) await openLoop(rig, run.steady.rate, run.steady.seconds);
    return figures;
  } finally {
    await rig.close();
  }
}

// `npm run bench:webhooks` runs this file: 1 then 4 endpoints, then the open loop.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const natsUrl = process.env.NATS_URL;
  if (!process.env.DATABASE_URL || !natsUrl) {
    console.error('bench: set DATABASE_URL and NATS_URL (a real Postgres and NATS JetStream)');
    process.exit(2);
  }
  await webhooksBench(natsUrl, {
    burst: Number(process.env.BENCH_EVENTS ?? 10_000), endpoints: [1, 4],
    steady: { rate: Number(process.env.BENCH_RATE ?? 500), seconds: Number(process.env.BENCH_SECONDS ?? 10) },
  });
}
