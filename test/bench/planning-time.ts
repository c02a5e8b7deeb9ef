// The planning budget: p99 under 2 ms in routing-risk at the bench's load. Routing-risk's
// PlanPayment is called in-process (the all-in-one's direct transport) on a real Postgres, for a
// scope whose rule learns (success rate: the planning read returns two hours of five-minute buckets
// of three accounts at three segment levels) and for one whose rule does not, among 200 other
// projects' buckets. Decision time is what svc_routing_plan_duration_seconds measures, from the
// planning read to the ranked plan: here from the store's planningInputs call to the plan's
// decisions being handed to be written (the store and writer are wrapped, the service is routing-risk's own). Printed, never
// asserted. Each row runs twice, interleaved: without the planning cache (every plan reads the
// scope's accounts and rules) and with it (planning-cache.ts, live through its
// listener), with the statements per plan and this process's CPU per plan (the whole call, its
// decisions' batched insert included) counted. Run: `npm run bench:planning` (BENCH_SECONDS,
// BENCH_RATE, BENCH_CLIENTS).
import { performance } from 'node:perf_hooks';
import { create } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import { ScopeSchema } from '../../proto/gen/svc/common/v1/common_pb.js';
import { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { systemClock } from '../../services/platform/clock.js';
import { createPool } from '../../services/platform/db.js';
import { admittedCallers, newInternalToken, withCredential } from '../../services/platform/internal-callers.js';
import { createLogger } from '../../services/platform/logger.js';
import { migrate } from '../../services/platform/migrate.js';
import { HealthState, createInProcessTransport } from '../../services/platform/rpc.js';
import { decisionWriter, type DecisionWriter } from '../../services/routing-risk/decision-writer.js';
import { createPlanningCache } from '../../services/routing-risk/planning-cache.js';
import { planningListener } from '../../services/routing-risk/planning-listener.js';
import { routes } from '../../services/routing-risk/service.js';
import { createStore, type RoutingRiskStore } from '../../services/routing-risk/store.js';
import { createTestDatabase } from '../helpers/database.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** One call at a time; then paced at the all-in-one bench's closed-loop rate (200–300 payments/s on this machine); then flat out. */
const RATE = Number(process.env.BENCH_RATE ?? 300);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const ACCOUNTS = ['pac_demo_alpha', 'pac_demo_beta', 'pac_demo_gamma'];
const OTHER_PROJECTS = 200;

const db = await createTestDatabase();
const pool = createPool(db.url, 'routing_risk', 10);
await migrate(pool, 'routing_risk', 'services/routing-risk');
let statements = 0;
const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
(pool as { query: unknown }).query = (...args: unknown[]) => {
  statements++;
  return query(...args);
};
const store = createStore(pool);
const cache = createPlanningCache();
const listener = planningListener(pool, cache, createLogger('bench', 'silent'));
await listener.start();

/** Decision times in ms, by the scope planned. */
const times: number[] = [];
const started = new WeakMap<object, number>();
const timed = (inner: RoutingRiskStore): RoutingRiskStore => ({
  ...inner,
  planningInputs(scope, input, at, key) {
    started.set(input, performance.now());
    return inner.planningInputs(scope, input, at, key);
  },
});
/** Decision time ends where the plan's decisions are handed to be written (after the answer, in batches). */
const timedWriter = (inner: RoutingRiskStore): DecisionWriter => {
  const writer = decisionWriter(inner, createLogger('bench', 'silent'));
  return {
    record(decision) {
      const t = started.get(decision.input);
      if (t !== undefined) times.push(performance.now() - t);
      writer.record(decision);
    },
    written: writer.written,
    flush: writer.flush,
  };
};

const token = newInternalToken();
const clientOf = (s: RoutingRiskStore) => createClient(RoutingService, withCredential(createInProcessTransport(
  routes(timed(s), systemClock, undefined, undefined, timedWriter(s)), new HealthState([RoutingService.typeName]), createLogger('bench', 'silent'),
  admittedCallers(token, []), undefined, { calls: 'direct' }), token));
const clients = { uncached: clientOf(store), cached: clientOf(createStore(pool, cache)) };
type Build = keyof typeof clients;

const scopeOf = (project: string) => ({ merchantId: 'mer_bench', projectId: project, mode: 'test' });
const rule = (strategy: Record<string, unknown>) => ({
  name: 'eur-cards', priority: 1, currencies: ['EUR'], countries: [], methods: ['card'], minAmount: null, maxAmount: null,
  providers: ['demo_alpha', 'demo_beta', 'demo_gamma'], strategy: strategy as never,
});
await store.createRule(create(ScopeSchema, scopeOf('prj_learns')), 'rtr_learns', rule({ type: 'success_rate' }), new Date());
await store.createRule(create(ScopeSchema, scopeOf('prj_static')), 'rtr_static', rule({ type: 'priority' }), new Date());

// Two hours of buckets for every project: the learning one's are what its read returns, the others' are the table's bulk.
const nowMinute = Math.floor(Date.now() / 60_000);
await pool.query(
  `INSERT INTO outcome_minutes (project_id, mode, payment_method, currency, country, card_network, minute,
     provider_account_id, succeeded, soft_declined, hard_declined, technical)
   SELECT p, 'test', 'card', 'EUR', l.country, l.network, ($1::bigint / 5 - b) * 5, a, 40 + b % 7, 3, 1, b % 2
   FROM unnest($2::text[]) p, unnest($3::text[]) a, generate_series(0, 24) b,
     (VALUES ('DE', 'visa'), ('DE', '*'), ('*', '*')) l (country, network)`,
  [nowMinute, ['prj_learns', 'prj_static', ...Array.from({ length: OTHER_PROJECTS }, (_, i) => `prj_other${i}`)], ACCOUNTS],
);
// And the attempts the health read takes each account's newest 100 from: one every 3 s over two hours for
// the learning scope, a tenth of that for each other project.
await pool.query(
  `INSERT INTO attempt_outcomes (event_id, attempt_id, payment_id, merchant_id, project_id, mode, provider_account_id,
     provider_code, payment_method, currency, country, card_network, status, outcome, failure_category, settled_at, received_at)
   SELECT 'evt_' || p || a || g, 'att_' || p || a || g, 'pay_' || p || g, 'mer_bench', p, 'test', a, a, 'card', 'EUR', 'DE', 'visa',
     CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'succeeded' END, 'x', CASE WHEN g % 20 = 0 THEN 'technical' WHEN g % 10 = 0 THEN 'soft' END,
     now() - g * interval '3 seconds', now()
   FROM unnest($1::text[]) p, unnest($2::text[]) a, generate_series(1, 2400) g
   WHERE p = 'prj_learns' OR g % 10 = 0`,
  [['prj_learns', 'prj_static', ...Array.from({ length: OTHER_PROJECTS }, (_, i) => `prj_other${i}`)], ACCOUNTS],
);
await pool.query('ANALYZE outcome_minutes');
await pool.query('ANALYZE attempt_outcomes');

let n = 0;
const plan = (build: Build, project: string) => clients[build].planPayment({
  scope: scopeOf(project),
  input: { paymentId: `pay_bench${n++}`, amount: 2500n, currency: 'EUR', country: 'DE', paymentMethodType: 'card' },
  cardNetwork: 'visa',
});

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/** Paced at `rate` a second (each call started on time, whatever the others do), or `clients` calls in a closed loop. */
async function run(build: Build, project: string, load: { rate: number } | { clients: number }): Promise<string> {
  times.length = 0;
  statements = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  const until = start + SECONDS * 1000;
  if ('rate' in load) {
    const calls: Promise<unknown>[] = [];
    for (let i = 0; performance.now() < until; i++) {
      calls.push(plan(build, project));
      const wait = start + (i + 1) * (1000 / load.rate) - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    await Promise.all(calls);
  } else {
    await Promise.all(Array.from({ length: load.clients }, async () => {
      while (performance.now() < until) await plan(build, project);
    }));
  }
  const { user, system } = process.cpuUsage(cpu);
  const sorted = [...times].sort((a, b) => a - b);
  const ms = (v: number) => `${v.toFixed(3)} ms`;
  const how = 'rate' in load ? `${load.rate}/s paced` : `${load.clients} clients`;
  return `${build.padEnd(8)} ${project.padEnd(11)} ${how.padEnd(12)} ${String(sorted.length).padStart(6)} plans  ` +
    `p50 ${ms(percentile(sorted, 50))}  p99 ${ms(percentile(sorted, 99))}  p99.9 ${ms(percentile(sorted, 99.9))}  ` +
    `${(statements / sorted.length).toFixed(2)} statements/plan  ${((user + system) / sorted.length).toFixed(0)} µs CPU/plan`;
}

try {
  // Warm the prepared statements and the JIT.
  for (let i = 0; i < 400; i++) await plan(i % 4 < 2 ? 'uncached' : 'cached', i % 2 ? 'prj_learns' : 'prj_static');
  console.log(`routing-risk decision time (planning read to ranked plan), ${SECONDS} s each; budget 2 ms at p99`);
  for (const load of [{ clients: 1 }, { rate: RATE }, { clients: CLIENTS }]) {
    for (const project of ['prj_static', 'prj_learns']) {
      for (const build of ['uncached', 'cached'] as const) console.log(await run(build, project, load));
    }
  }
} finally {
  await listener.stop();
  await pool.end();
  await db.drop();
}
