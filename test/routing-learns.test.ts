import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { outcomeKind } from '../services/routing-risk/strategies/index.js';
import { eventually, rowsWritten } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// Real JetStream: CI's, or one of the file's own without NATS_URL.
const { url: natsUrl } = await jetStreamForFile();

// Routing learns from the attempt.settled events. Payments announce each settled attempt,
// routing-risk's consumer claims it once and counts it into its minute in the same statement,
// and the next payment's single planning read ranks the rule's accounts by those windows: the
// strategy, scores and reason stored with the decision. Real Postgres, NATS JetStream and HTTP.
// (Rules take a strategy when created; there is no update call yet, so the tests switch it on the stored rule.)

const PROVIDERS = ['demo_gamma', 'demo_beta', 'demo_alpha'];
// Gamma first on the route: each scenario plays on the first attempt (services/connectors/scenarios.ts).
const SCENARIOS = ['unavailable', 'unavailable', 'unavailable', 'unavailable', 'unavailable', 'failover', 'hard_decline'];

describe('routing-risk learns from attempt outcomes', () => {
  let stack: TestStack;
  let m: { merchantId: string; projectId: string; secret: string };
  let ruleId: string;
  const attempts: any[] = [];

  before(async () => {
    stack = await startTestStack({ natsUrl });
    m = await stack.newMerchantKey('test');
    const rule = await stack.manage('POST', `/projects/${m.projectId}/routing-rules`, {
      mode: 'test', name: 'eur-learning', priority: 1, currencies: ['EUR'], providers: PROVIDERS,
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    ruleId = rule.body.id;
  });
  after(async () => {
    await stack?.close();
  });

  // Through the API: routing-risk drops its cached rules before answering, so the very next payment
  // plans with the new strategy (a change by SQL would reach the cache by notification, a moment later).
  const setStrategy = async (strategy: unknown) => {
    const res = await stack.manage('PATCH', `/projects/${m.projectId}/routing-rules/${ruleId}?mode=test`, { strategy });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  const pay = async (scenario?: string) => {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: m.secret, body: { amount: 2000, currency: 'EUR', payment_method: 'card', country: 'DE', test_scenario: scenario },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };

  /** The buckets' counts per account at the coarsest level (method and currency: every outcome once). */
  async function minuteCounts() {
    const { rows } = await stack.query(
      `SELECT provider_account_id, sum(succeeded)::int AS succeeded, sum(soft_declined)::int AS soft,
         sum(hard_declined)::int AS hard, sum(technical)::int AS technical
       FROM routing_risk.outcome_minutes WHERE project_id = $1 AND country = '*' AND card_network = '*'
       GROUP BY 1 ORDER BY 1`, [m.projectId]);
    return rows;
  }

  const decision = async (id: string) => (await rowsWritten('the decision', () => stack.query(
    'SELECT strategy, candidates, scores, reason, explored FROM routing_risk.routing_decisions WHERE id = $1', [id])))[0];

  test('each settled attempt counts once in its bucket, classified as the strategies classify it', async () => {
    // A learning rule (minutes are counted only where one learns) that keeps the rule's order while
    // the history builds: no account can gather the sample elimination needs, and no probes.
    await setStrategy({ type: 'elimination', settings: { eliminationAttempts: 10_000, eliminationMinSample: 10_000, probeShare: 0 } });
    for (const scenario of SCENARIOS) attempts.push(...(await pay(scenario)).attempts);
    const expected = new Map<string, Record<string, number>>();
    for (const a of attempts) {
      const c = expected.get(a.provider_account_id) ?? { succeeded: 0, soft: 0, hard: 0, technical: 0 };
      c[outcomeKind(a.status, a.failure?.category)]! += 1;
      expected.set(a.provider_account_id, c);
    }
    const want = [...expected].sort(([x], [y]) => (x < y ? -1 : 1)).map(([id, c]) => ({ provider_account_id: id, ...c }));
    assert.deepEqual(want, [
      { provider_account_id: 'pac_demo_beta', succeeded: 6, soft: 0, hard: 0, technical: 0 },
      { provider_account_id: 'pac_demo_gamma', succeeded: 0, soft: 1, hard: 1, technical: 5 },
    ]);
    await eventually('the outcomes counted', async () => {
      const rows = await minuteCounts();
      return rows.reduce((n: number, r: any) => n + r.succeeded + r.soft + r.hard + r.technical, 0) >= attempts.length ? rows : undefined;
    });
    assert.deepEqual(await minuteCounts(), want);

    // Delivered again: the claim by event id holds, the minutes do not move.
    const nats = stack.testBus.nats;
    assert.ok(nats, 'runs on real NATS JetStream (CI sets NATS_URL)');
    const outbox = (await stack.query(`SELECT event_id, type, payload FROM payments.outbox WHERE type = 'internal.attempt.settled'`)).rows;
    assert.equal(outbox.length, attempts.length);
    for (const o of outbox) {
      await stack.testBus.bus.publish({
        subject: `${nats.subjectPrefix}.${o.type}`, msgId: `${o.event_id}.again`, data: Buffer.from(JSON.stringify(o.payload)),
      });
    }
    await eventually('routing-risk consumed the copies', async () =>
      ((await stack.testBus.bus.pending!('routing-risk')) === 0 ? true : undefined));
    assert.deepEqual(await minuteCounts(), want);
  });

  test('elimination: the account failing technically goes to the end, the decision says why', async () => {
    await setStrategy({ type: 'elimination', settings: { eliminationMinSample: 5, probeShare: 0 } });
    const p = await pay();
    assert.equal(p.status, 'successful');
    assert.equal(p.attempts[0].provider_account_id, 'pac_demo_beta');
    const d = await decision(p.route.routing_decision_id);
    assert.equal(d.strategy, 'elimination');
    assert.deepEqual(d.candidates, ['pac_demo_beta', 'pac_demo_alpha', 'pac_demo_gamma']);
    assert.match(d.reason, /Demo Gamma moved to the end \(83\.3 % technical failures in its last 6 attempts\)/);
    assert.equal(d.explored, false);
    assert.deepEqual(d.scores.map((s: any) => s.provider_account_id), d.candidates);
    const timeline = await request(stack.baseUrl, 'GET', `/v1/payments/${p.id}/timeline`, { key: m.secret });
    assert.match(timeline.body.data.find((e: any) => e.type === 'routing.decided').description,
      /Ordered by elimination: .*Demo Gamma moved to the end/);
  });

  test('success rate: the best recent rate in the payment\'s segment first, with its scores', async () => {
    await setStrategy({ type: 'success_rate', settings: { minSample: 5, explorationShare: 0, eliminationMinSample: 5, probeShare: 0 } });
    const p = await pay();
    assert.equal(p.attempts[0].provider_account_id, 'pac_demo_beta');
    const d = await decision(p.route.routing_decision_id);
    assert.equal(d.strategy, 'success_rate');
    assert.match(d.reason, /^Demo Beta first: 100\.0 % over \d+ recent EUR DE card payments; Demo Alpha fewer than 5 recent outcomes; Demo Gamma fewer than 5 recent outcomes, moved to the end \(83\.3 % technical failures in its last 6 attempts\)/);
    assert.equal(d.scores[0].score, 1);
    assert.deepEqual(d.candidates, ['pac_demo_beta', 'pac_demo_alpha', 'pac_demo_gamma']);
    // Gamma answered once (a soft decline): too few for a rate, its time-outs count as availability.
    assert.equal(d.scores.find((s: any) => s.provider_account_id === 'pac_demo_gamma').score, null);
    // The plan answer carries the same reasons to payments: its timeline tells them, no second read.
    const timeline = await request(stack.baseUrl, 'GET', `/v1/payments/${p.id}/timeline`, { key: m.secret });
    const decided = timeline.body.data.find((e: any) => e.type === 'routing.decided');
    assert.equal(decided.data.strategy, 'success_rate');
    assert.equal(decided.data.reason, d.reason);
    assert.equal(decided.data.explored, false);
    assert.deepEqual(decided.data.scores.map((s: any) => [s.provider_account_id, s.score, s.sample, s.note]),
      d.scores.map((s: any) => [s.provider_account_id, s.score, s.sample, s.note]));
    assert.ok(decided.description.includes(`Ordered by success rate: ${d.reason}.`), decided.description);
  });

  test('card network: a stored card\'s brand plans and counts in its network\'s segment, whose rate the reason then names', async () => {
    const created = await request(stack.baseUrl, 'POST', '/v1/payment-methods', {
      key: m.secret, body: { type: 'card', provider_token: 'tok_demo_visa', display: { brand: 'Visa', last4: '4242' } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const payWithCard = async () => {
      const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
        key: m.secret, body: { amount: 2000, currency: 'EUR', payment_method: { type: 'card', id: created.body.id }, country: 'DE' },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    // Too few Visa outcomes yet: the rate is the country's.
    const first = await payWithCard();
    assert.match((await decision(first.route.routing_decision_id)).reason, /^Demo Beta first: 100\.0 % over \d+ recent EUR DE card payments/);
    const visaMinutes = async () => (await stack.query(
      `SELECT coalesce(sum(succeeded), 0)::int AS n FROM routing_risk.outcome_minutes
       WHERE project_id = $1 AND provider_account_id = 'pac_demo_beta' AND country = 'DE' AND card_network = 'visa'`,
      [m.projectId])).rows[0].n as number;
    for (let i = 0; i < 4; i++) await payWithCard();
    await eventually('five Visa outcomes counted', async () => ((await visaMinutes()) >= 5 ? true : undefined));

    const p = await payWithCard();
    assert.equal(p.attempts[0].provider_account_id, 'pac_demo_beta');
    const d = await decision(p.route.routing_decision_id);
    assert.match(d.reason, /^Demo Beta first: 100\.0 % over 5 recent EUR Visa DE card payments/);
    // A payment without a card's facts still reads the country's segment.
    assert.match((await decision((await pay()).route.routing_decision_id)).reason, /recent EUR DE card payments/);
  });

  test('planning time is measured per strategy', async () => {
    const text = await stack.metrics.text();
    assert.match(text, /svc_routing_plan_duration_seconds_count\{strategy="success_rate"\} [1-9]/);
    assert.match(text, /svc_routing_plan_duration_seconds_count\{strategy="elimination"\} [1-9]/);
  });
});
