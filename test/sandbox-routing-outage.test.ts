import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { RoutingService } from '../proto/gen/svc/routing/v1/routing_pb.js';
import { systemClock } from '../services/platform/clock.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { admittedCallers, newInternalToken, withCredential } from '../services/platform/internal-callers.js';
import { createLogger } from '../services/platform/logger.js';
import { HealthState, createInProcessTransport } from '../services/platform/rpc.js';
import { createPlanningCache } from '../services/routing-risk/planning-cache.js';
import { planningListener } from '../services/routing-risk/planning-listener.js';
import { routes } from '../services/routing-risk/service.js';
import { createStore } from '../services/routing-risk/store.js';
import { rowsWritten } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// Routing through a provider's outage, as a merchant lives it: real time (no clock moved), the
// REST gateway, real Postgres and JetStream. Three demo providers, each best in a different
// segment (Alpha for USD, Beta for EUR, Gamma second in both), a success-rate rule with default
// settings listing them in the worst order. After the warm-up, Alpha goes down for USD at whatever
// second of its five-minute bucket the test reaches (its bucket already holding its attempts): the
// USD payments whose first attempt still goes to Alpha (probes aside) stop within 20, and once the
// outage ends Alpha is first again within 60. Two more routing-risk replicas on the same database
// plan the same payment at the same moment and agree, outage and recovery included.

const { url: natsUrl } = await jetStreamForFile();

const ALPHA = 'pac_demo_alpha';
const BEHAVIOUR: Array<[provider: string, currency: string, rate: number]> = [
  ['demo_alpha', 'USD', 0.95], ['demo_beta', 'USD', 0.8], ['demo_gamma', 'USD', 0.88],
  ['demo_alpha', 'EUR', 0.8], ['demo_beta', 'EUR', 0.95], ['demo_gamma', 'EUR', 0.88],
];
const CLIENTS = 8;
const WARM_UP_CAP = 1_600;
const LEAVE_WITHIN = 20;
const RETURN_WITHIN = 60;

interface Paid { payment: any; first: string; explored: boolean; reason: string }

describe('sandbox, real time: an outage starting mid-bucket is left within 20 payments, and recovery seen within 60', () => {
  let stack: TestStack;
  let m: { merchantId: string; projectId: string; secret: string };
  let replicaPools: Pool[] = [];
  let stopListeners: Array<() => Promise<void>> = [];
  let replicas: Array<ReturnType<typeof createClient<typeof RoutingService>>> = [];

  before(async () => {
    stack = await startTestStack({ natsUrl, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    m = await stack.newMerchantKey('test');
    const rule = await stack.manage('POST', `/projects/${m.projectId}/routing-rules`, {
      mode: 'test', name: 'cards', priority: 1, payment_method_types: ['card'],
      providers: ['demo_beta', 'demo_gamma', 'demo_alpha'], strategy: { type: 'success_rate' },
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    for (const [provider, currency, rate] of BEHAVIOUR) {
      const set = await stack.manage('PUT', `/projects/${m.projectId}/demo-behaviour`, {
        mode: 'test', provider, payment_method: 'card', currency, approval_rate: rate,
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
    }
    // Two more replicas of routing-risk's planner on the stack's database, each with its own cache and listener.
    for (let i = 0; i < 2; i++) {
      const pool = createPool(stack.db.url, 'routing_risk', 2);
      const cache = createPlanningCache();
      const listener = planningListener(pool, cache, createLogger('test', 'silent'), 100);
      await listener.start();
      const token = newInternalToken();
      const transport = createInProcessTransport(routes(createStore(pool, cache), systemClock), new HealthState([RoutingService.typeName]),
        createLogger('test', 'silent'), admittedCallers(token, []), undefined, { calls: 'direct', freezeMessages: true });
      replicaPools.push(pool);
      stopListeners.push(() => listener.stop());
      replicas.push(createClient(RoutingService, withCredential(transport, token)));
    }
  });
  after(async () => {
    for (const stop of stopListeners) await stop();
    for (const pool of replicaPools) await pool.end();
    await stack?.close();
  });

  const countryOf = (currency: string) => (currency === 'USD' ? 'US' : 'DE');

  async function pay(currency: string): Promise<Paid> {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: m.secret, body: { amount: 2500, currency, payment_method: 'card', country: countryOf(currency) },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const [d] = await rowsWritten('the decision', () => stack.query('SELECT reason, explored FROM routing_risk.routing_decisions WHERE id = $1',
      [res.body.route.routing_decision_id]));
    return { payment: res.body, first: res.body.attempts[0].provider_account_id, explored: d.explored, reason: d.reason };
  }

  /** `n` payments from a few clients at once, two USD for one EUR. */
  async function payMany(n: number): Promise<Paid[]> {
    const paid: Paid[] = new Array(n);
    let next = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (next < n) {
        const i = next++;
        paid[i] = await pay(i % 3 === 2 ? 'EUR' : 'USD');
      }
    }));
    return paid;
  }

  /**
   * The same payment planned by both replicas now: their orders and reasons. A payment that draws
   * the exploration share (sticky by its id, so the same on both) is passed over for the next.
   */
  let planReads = 0;
  async function replicasPlan(currency: string) {
    for (let i = 0; ; i++) {
      const paymentId = `pay_replica_${currency}_${planReads++}`;
      const plans = await Promise.all(replicas.map((r) => r.planPayment({
        scope: { merchantId: m.merchantId, projectId: m.projectId, mode: 'test' },
        input: { paymentId, amount: 2500n, currency, country: countryOf(currency), paymentMethodType: 'card' },
      })));
      const read = plans.map((p) => ({ order: p.routing!.candidates.map((c) => c.providerAccountId), reason: p.routing!.reason ?? '' }));
      if (!read[0]!.reason.includes('by exploration') || i >= 20) return read;
    }
  }

  /**
   * Both replicas' plans, read again for up to 5 s until they agree: the last payments' outcomes
   * reach routing-risk after their answers (its batch), and a replica reads them once recorded.
   */
  async function agreedPlans(currency: string) {
    const until = performance.now() + 5000;
    for (;;) {
      const plans = await replicasPlan(currency);
      if (isDeepStrictEqual(plans[0], plans[1]) || performance.now() > until) return plans;
      await sleep(200);
    }
  }

  test('warm-up, outage of the USD leader at an arbitrary second, leave within 20, back within 60, replicas agree', async () => {
    const started = performance.now();
    // Warm-up: until Alpha is trusted first for USD (its last 30 USD payments that did not explore all started there).
    const warm: Paid[] = [];
    const usdFirsts = () => warm.filter((p) => p.payment.currency === 'USD' && !p.explored).slice(-30);
    while (warm.length < WARM_UP_CAP && !(usdFirsts().length === 30 && usdFirsts().every((p) => p.first === ALPHA))) {
      warm.push(...await payMany(200));
    }
    assert.ok(usdFirsts().every((p) => p.first === ALPHA), `Alpha leads USD after ${warm.length} payments: ${usdFirsts().at(-1)?.reason}`);
    // Steady state: 300 more payments, measured against the oracle (printed: 300 payments carry about ±1.3 points of noise).
    const steady = await payMany(300);
    const explored = steady.filter((p) => p.explored).length / steady.length;
    const firstApproved = steady.filter((p) => p.payment.attempts[0].status !== 'failed').length / steady.length;
    // The oracle: each segment's best provider (Alpha for USD, Beta for EUR) as it actually approved over these payments.
    const realised = new Map<string, [number, number]>();
    for (const p of [...warm, ...steady]) for (const a of p.payment.attempts) {
      const key = `${p.payment.currency} ${a.provider_account_id}`;
      const [won, seen] = realised.get(key) ?? [0, 0];
      realised.set(key, [won + (a.status === 'failed' ? 0 : 1), seen + 1]);
    }
    const best = (currency: string) => {
      const [won, seen] = realised.get(`${currency} ${currency === 'USD' ? ALPHA : 'pac_demo_beta'}`)!;
      return won / seen;
    };
    const oracle = steady.reduce((sum, p) => sum + best(p.payment.currency), 0) / steady.length;
    const eurBeta = steady.filter((p) => p.payment.currency === 'EUR' && !p.explored).every((p) => p.first === 'pac_demo_beta');
    console.log(`warm-up: ${warm.length} payments; then 300: ${(explored * 100).toFixed(1)} % explored, `
      + `${(firstApproved * 100).toFixed(1)} % approved at the first attempt (oracle ${(oracle * 100).toFixed(1)} %, `
      + `gap ${((firstApproved - oracle) * 100).toFixed(1)} points), Beta leads EUR: ${eurBeta}`);

    // The outage starts where the test is in its five-minute bucket, by the database's clock.
    const { rows: [{ second }] } = await stack.query('SELECT (extract(epoch FROM now())::numeric % 300)::float8 AS second');
    const { rows: [{ n: inBucket }] } = await stack.query(
      `SELECT count(*)::int AS n FROM routing_risk.attempt_outcomes WHERE provider_account_id = $1 AND currency = 'USD'
         AND settled_at >= to_timestamp(floor(extract(epoch FROM now()) / 300) * 300)`, [ALPHA]);
    const down = await stack.manage('PUT', `/projects/${m.projectId}/demo-behaviour`, {
      mode: 'test', provider: 'demo_alpha', payment_method: 'card', currency: 'USD', outage_minutes: 10,
    });
    assert.equal(down.status, 200, JSON.stringify(down.body));

    // One USD payment at a time, so "within N payments" counts payments in order.
    const during: Paid[] = [];
    for (let i = 0; i < 60; i++) during.push(await pay('USD'));
    assert.ok(during.filter((p) => p.first === ALPHA).every((p) => p.payment.attempts[0].outcome === 'provider_unavailable'),
      'Alpha was down');
    const leftAfter = during.reduce((n, p, i) => (p.first === ALPHA && !p.explored ? i + 1 : n), 0);
    const probes = during.filter((p) => p.first === ALPHA && p.explored).length;
    console.log(`outage at second ${Number(second).toFixed(1)} of its bucket (Alpha's USD attempts in it before: ${inBucket}): `
      + `the last USD payment starting at Alpha other than a probe was number ${leftAfter}; ${probes} probes in 60`);
    assert.ok(leftAfter <= LEAVE_WITHIN, `left after ${leftAfter} payments: ${during[leftAfter - 1]?.reason}`);
    assert.ok(during.slice(-10).every((p) => p.first !== ALPHA || p.explored), 'Alpha starts only probes');
    const [a, b] = await agreedPlans('USD');
    assert.deepEqual(a, b, 'both replicas read the same health');
    assert.match(a!.reason, /Demo Alpha [^;]*\d+\.\d % technical failures/, 'both replicas see Alpha failing');

    // The outage ends; Alpha is first again once its probes are answered.
    const up = await stack.manage('PUT', `/projects/${m.projectId}/demo-behaviour`, {
      mode: 'test', provider: 'demo_alpha', payment_method: 'card', currency: 'USD', outage_minutes: 0,
    });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    let back = 0;
    for (let i = 1; i <= 2 * RETURN_WITHIN && back === 0; i++) {
      const p = await pay('USD');
      if (p.first === ALPHA && !p.explored) back = i;
    }
    console.log(`Alpha first again ${back} USD payments after the outage ended; ${((performance.now() - started) / 1000).toFixed(0)} s`);
    assert.ok(back > 0 && back <= RETURN_WITHIN, `back after ${back || 'more than 120'} payments`);
    const [a2, b2] = await agreedPlans('USD');
    assert.deepEqual(a2, b2, 'both replicas read the same recovery');
    assert.equal(a2!.order[0], ALPHA, `both replicas put Alpha first again: ${a2!.reason}`);
  });
});
