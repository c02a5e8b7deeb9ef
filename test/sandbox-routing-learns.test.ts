import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { rowsWritten } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// Real JetStream: CI's, or one of the file's own without NATS_URL.
const { url: natsUrl } = await jetStreamForFile();

// Routing that learns, in the sandbox: Demo Alpha approves 80 % and Demo Beta 95 % of this
// project's EUR card payments (demo behaviour), a success-rate rule lists the worse one first, and
// 1,000 payments through the REST API end above 93 % approved with a reason stored for each
// routing decision and told on the payment's timeline. Because failover to the other account makes end approval easy (1 − 0.2 × 0.05
// = 99 % whatever the order), the test also asserts that routing learned: after a warm-up Beta
// takes the first attempt. Outages, in real time, are test/sandbox-routing-outage.test.ts's.
//
// The rule's learning settings, and why:
// - minSample 20: a rate is trusted after 20 answered attempts, so Alpha (first in the rule) has one
//   after ~20 payments and Beta (reached by failover and exploration, ~28 % of payments) after ~90:
//   the warm-up of 150 covers both.
// - explorationShare 0.08: Beta, second in the rule, is reached by failover and exploration only
//   until its rate is trusted; it costs Beta 8 % of first attempts in steady state.
const RULE_STRATEGY = {
  type: 'success_rate',
  settings: { minSample: 20, explorationShare: 0.08 },
};
const PAYMENTS = 1_000;
const WARM_UP = 150;
const CLIENTS = 8;
const BETA = 'pac_demo_beta';

interface Paid { payment: any; decision: { reason: string; explored: boolean } }

describe('sandbox: routing learns from the demo providers a project sets up', () => {
  let stack: TestStack;
  let m: { merchantId: string; projectId: string; secret: string };

  before(async () => {
    // 1,000 payments and then their timelines within a minute: above the per-key default of 1,000 a minute.
    stack = await startTestStack({ natsUrl, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    m = await stack.newMerchantKey('test');
    const rule = await stack.manage('POST', `/projects/${m.projectId}/routing-rules`, {
      mode: 'test', name: 'eur-cards', priority: 1, currencies: ['EUR'], payment_method_types: ['card'],
      providers: ['demo_alpha', 'demo_beta'], strategy: RULE_STRATEGY,
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    for (const [provider, rate] of [['demo_alpha', 0.8], ['demo_beta', 0.95]] as const) {
      const set = await stack.manage('PUT', `/projects/${m.projectId}/demo-behaviour`, {
        mode: 'test', provider, payment_method: 'card', currency: 'EUR', approval_rate: rate,
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
      assert.equal(set.body.approval_rate, rate);
    }
  });
  after(async () => {
    await stack?.close();
  });

  async function pay(): Promise<any> {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: m.secret, body: { amount: 2500, currency: 'EUR', payment_method: 'card', country: 'DE' },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.ok(res.body.route.routing_decision_id, `payment ${res.body.id} names its routing decision`);
    return res.body;
  }

  /** Each payment with its stored routing decision, read in one statement. */
  async function withDecisions(payments: any[]): Promise<Paid[]> {
    const ids = payments.map((p) => p.route.routing_decision_id);
    const rows = await rowsWritten('the decisions', () => stack.query(
      'SELECT id, reason, explored FROM routing_risk.routing_decisions WHERE id = ANY($1)', [ids]), ids.length);
    const byId = new Map(rows.map((r: any) => [r.id, r]));
    return payments.map((payment) => {
      const decision = byId.get(payment.route.routing_decision_id);
      assert.ok(decision, `the decision of ${payment.id} is stored`);
      return { payment, decision };
    });
  }

  const firstAt = (p: Paid) => p.payment.attempts[0].provider_account_id;

  test('1,000 EUR card payments: above 93 % approved, each decision with its reason, Beta first after the warm-up', async () => {
    // Numbered in the order they were started; a few clients at once, as a shop's checkout would.
    const payments: any[] = new Array(PAYMENTS);
    let next = 0;
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      while (next < PAYMENTS) {
        const i = next++;
        payments[i] = await pay();
      }
    }));
    const paid = await withDecisions(payments);

    const approved = paid.filter((p) => p.payment.status === 'successful').length;
    // Expected ~99 % (a payment fails only when both decline): 93 % is > 20 standard deviations below.
    assert.ok(approved > 0.93 * PAYMENTS, `${approved} of ${PAYMENTS} approved`);
    for (const p of paid) {
      assert.ok(p.decision.reason.length > 0, `payment ${p.payment.id} has a routing reason`);
      // A declined attempt says why on the payment itself.
      for (const a of p.payment.attempts) if (a.status === 'failed') assert.equal(a.provider_code, 'do_not_honor');
    }

    // Beta ranks first once both rates are trusted; only exploration (8 %) starts at Alpha. Of 850
    // payments that is ~92 % at Beta, with a standard deviation of √(0.92 × 0.08 / 850) ≈ 0.9
    // points: 85 % leaves more than 7 of them for the odd payment planned before a rate settled.
    const learned = paid.slice(WARM_UP);
    const atBeta = learned.filter((p) => firstAt(p) === BETA).length;
    assert.ok(atBeta >= 0.85 * learned.length, `Beta took the first attempt of ${atBeta} of ${learned.length} payments`);
    console.log(`${approved} of ${PAYMENTS} approved; Beta first in ${atBeta} of the ${learned.length} after the warm-up`);
    const reason = learned.find((p) => firstAt(p) === BETA && !p.decision.explored)!.decision.reason;
    assert.match(reason, /^Demo Beta first: \d+\.\d % over \d+ recent EUR DE card payments; Demo Alpha \d+\.\d % over/);

    // What the merchant sees: the payment's timeline tells the same reason (every tenth payment read).
    for (const p of paid.filter((_, i) => i % 10 === 0)) {
      const timeline = await request(stack.baseUrl, 'GET', `/v1/payments/${p.payment.id}/timeline`, { key: m.secret });
      assert.equal(timeline.status, 200, JSON.stringify(timeline.body));
      const decided = timeline.body.data.find((e: any) => e.type === 'routing.decided');
      assert.equal(decided?.data.reason, p.decision.reason, `the timeline of ${p.payment.id} tells its routing reason`);
      assert.ok(decided.description.includes(p.decision.reason), decided.description);
    }
  });
});
