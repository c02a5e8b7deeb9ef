import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { jetStreamForFile } from './helpers/nats-server.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';

// Real JetStream: CI's, or one of the file's own without NATS_URL.
const { url: natsUrl } = await jetStreamForFile();

// Issue 26's Done-when, in the sandbox: Demo Alpha approves 80 % and Demo Beta 95 % of this
// project's EUR card payments (demo behaviour), a success-rate rule lists the worse one first, and
// 1,000 payments through the REST API end above 93 % approved with a reason stored for each
// routing decision and told on the payment's timeline. Because failover to the other account makes end approval easy (1 − 0.2 × 0.05
// = 99 % whatever the order), the test also asserts that routing learned: after a warm-up Beta
// takes the first attempt. Then Beta goes down: first attempts move to Alpha within 20 payments,
// and come back once the outage is over and Beta's probes succeed.
//
// The rule's learning settings, and why:
// - minSample 20: a rate is trusted after 20 answered attempts, so Alpha (first in the rule) has one
//   after ~20 payments and Beta (reached by failover and exploration, ~28 % of payments) after ~90:
//   the warm-up of 150 covers both.
// - explorationShare 0.08: the success-rate strategy's probes of an eliminated account come out of
//   this share (failovers to it count too), so it sets how fast Beta is seen again after its
//   outage (below); it costs Beta 8 % of first attempts in steady state.
// - eliminationMinSample 2: in a bucket of its own, two technical failures eliminate an account and
//   two successful attempts bring it back. Outcomes are counted in five-minute buckets, each taken
//   whole, so the test moves the shared clock (offsetClock) past a bucket before the outage and
//   again past its end, as real time would: the outage is set "from now for 10 minutes" and ends
//   by that clock.
const RULE_STRATEGY = {
  type: 'success_rate',
  settings: { minSample: 20, explorationShare: 0.08, eliminationMinSample: 2 },
};
const PAYMENTS = 1_000;
const WARM_UP = 150;
const CLIENTS = 8;
const ALPHA = 'pac_demo_alpha';
const BETA = 'pac_demo_beta';
const MINUTE = 60_000;
const OUTAGE_MINUTES = 10;

interface Paid { payment: any; decision: { reason: string; explored: boolean } }

describe('sandbox: routing learns from the demo providers a project sets up', () => {
  const clock = offsetClock();
  let stack: TestStack;
  let m: { merchantId: string; projectId: string; secret: string };

  before(async () => {
    // 1,000 payments and then their timelines within a minute: above the per-key default of 1,000 a minute.
    stack = await startTestStack({ natsUrl, clock, env: { RATE_LIMIT_PER_MINUTE: '100000' } });
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
    const { rows } = await stack.query('SELECT id, reason, explored FROM routing_risk.routing_decisions WHERE id = ANY($1)', [ids]);
    const byId = new Map(rows.map((r: any) => [r.id, r]));
    return payments.map((payment) => {
      const decision = byId.get(payment.route.routing_decision_id);
      assert.ok(decision, `the decision of ${payment.id} is stored`);
      return { payment, decision };
    });
  }

  /** One at a time, so "within N payments" counts payments in order. */
  async function payInTurn(n: number): Promise<Paid[]> {
    const payments: any[] = [];
    for (let i = 0; i < n; i++) payments.push(await pay());
    return withDecisions(payments);
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

  test('an outage of Beta moves first attempts to Alpha within 20 payments, and back after it ends', async () => {
    // A new bucket for the outage's outcomes (see above), then Beta down from now for 10 minutes.
    clock.offsetMs += 2 * 5 * MINUTE;
    const down = await stack.manage('PUT', `/projects/${m.projectId}/demo-behaviour`, {
      mode: 'test', provider: 'demo_beta', payment_method: 'card', currency: 'EUR', outage_minutes: OUTAGE_MINUTES,
    });
    assert.equal(down.status, 200, JSON.stringify(down.body));
    assert.equal(down.body.approval_rate, 0.95, 'the outage keeps the approval rate');
    assert.equal(Date.parse(down.body.outage_until), Date.parse(down.body.updated_at) + OUTAGE_MINUTES * MINUTE);

    const during = await payInTurn(60);
    const hitBeta = during.filter((p) => firstAt(p) === BETA);
    assert.ok(hitBeta.length > 0 && hitBeta.every((p) => p.payment.attempts[0].outcome === 'provider_unavailable'),
      'Beta was tried and found unavailable');
    for (const p of during) assert.ok(p.payment.attempts.some((a: any) => a.provider_account_id === ALPHA), 'each payment reached Alpha');
    // After the 20th, Beta starts only a probe (the exploration share): ~3 of 40 expected, 10
    // is 4 standard deviations (√(40 × 0.08 × 0.92) ≈ 1.7) above.
    const late = during.slice(20).filter((p) => firstAt(p) === BETA);
    assert.ok(late.every((p) => p.decision.explored), `after 20 payments only probes start at Beta: ${JSON.stringify(late.map((p) => p.decision.reason))}`);
    assert.ok(late.length <= 10, `${late.length} probes of 40`);
    const lastAtBeta = during.reduce((n, p, i) => (firstAt(p) === BETA && !p.decision.explored ? i + 1 : n), 0);
    console.log(`outage: the last payment starting at Beta other than a probe was the ${lastAtBeta}th; ${late.length} probes after the 20th`);
    assert.match(during.at(-1)!.decision.reason, /Demo Beta .*moved to the end \(\d+\.\d % technical failures in its last \d+ attempts\)/);

    // The outage's ten minutes pass (and a new bucket begins): Beta stays at the end until two of
    // its attempts succeed there: probes (8 % of payments) and failovers from Alpha's soft declines
    // (20 % of the rest), each succeeding 95 % of the time, so about 25 % of payments bring one.
    // Fewer than two in 60 payments has a chance of under 1 in a million (> 4.8 sd).
    clock.offsetMs += (OUTAGE_MINUTES + 1) * MINUTE;
    let back = -1;
    for (let i = 0; i < 60 && back < 0; i++) {
      const [p] = await payInTurn(1);
      if (firstAt(p!) === BETA && !p!.decision.explored) back = i + 1;
    }
    assert.ok(back > 0, 'Beta ranks first again within 60 payments of the outage\'s end');
    // Back for good: every payment that does not explore starts at Beta.
    for (const p of await payInTurn(20)) if (!p.decision.explored) assert.equal(firstAt(p), BETA, p.decision.reason);
    console.log(`Beta first again ${back} payments after the outage ended`);
  });
});
