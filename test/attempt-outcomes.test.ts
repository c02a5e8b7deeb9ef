import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// Routing-risk learns from attempt outcomes. Payments writes an internal attempt.settled
// event per settled attempt through its outbox, in the change's own statements; routing-risk's
// durable consumer records each attempt once, also when the events are delivered again. Webhooks never stores an internal event.

const SCENARIOS = ['failover', 'all_fail', 'success', 'hard_decline', 'timeout_recovered', 'soft_decline'];

// Redelivery is JetStream's: NATS_URL's, or on a laptop a nats-server of this file's own.
const { url: natsUrl, skip: withoutNats } = await jetStreamForFile();

describe('routing-risk receives attempt.settled events', { skip: withoutNats }, () => {
  let stack: TestStack;
  let key: string;
  const attempts: any[] = [];

  before(async () => {
    stack = await startTestStack({ natsUrl });
    key = (await stack.newMerchantKey('test')).secret;
  });
  after(async () => {
    await stack?.close();
  });

  /** What routing-risk recorded: outcome rows, and what they add up to by account and segment. */
  async function recorded() {
    const rows = (await stack.query('SELECT * FROM routing_risk.attempt_outcomes ORDER BY attempt_id')).rows;
    const counts = (await stack.query(
      `SELECT provider_account_id, mode, payment_method, currency, coalesce(country, '') AS country,
         coalesce(card_network, '') AS card_network, count(*) FILTER (WHERE status <> 'failed')::int AS succeeded,
         count(*) FILTER (WHERE status = 'failed')::int AS failed,
         count(*) FILTER (WHERE status = 'failed' AND failure_category = 'technical')::int AS failed_by_provider,
         count(latency_ms)::int AS latency_count
       FROM routing_risk.attempt_outcomes GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY provider_account_id`,
    )).rows;
    return { rows, counts };
  }

  /** The counts the API's attempts imply, by account. */
  function expectedCounts() {
    const by = new Map<string, { succeeded: number; failed: number; failed_by_provider: number }>();
    for (const a of attempts) {
      const c = by.get(a.provider_account_id) ?? { succeeded: 0, failed: 0, failed_by_provider: 0 };
      if (a.status === 'failed') c.failed += 1;
      else c.succeeded += 1;
      if (a.status === 'failed' && a.failure?.category === 'technical') c.failed_by_provider += 1;
      by.set(a.provider_account_id, c);
    }
    return [...by.entries()].sort(([x], [y]) => (x < y ? -1 : 1)).map(([account, c]) => ({
      provider_account_id: account, mode: 'test', payment_method: 'card', currency: 'EUR', country: 'DE', card_network: '', ...c,
    }));
  }

  test('payments with failover: each settled attempt recorded once, with its account, method, currency, country and outcome', async () => {
    for (const scenario of SCENARIOS) {
      const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
        key, body: { amount: 1500, currency: 'EUR', payment_method: 'card', country: 'DE', test_scenario: scenario },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      attempts.push(...res.body.attempts.map((a: any) => ({ ...a, payment_id: res.body.id })));
    }
    assert.ok(attempts.length > SCENARIOS.length, 'failover made more attempts than payments');
    assert.ok(attempts.every((a) => ['succeeded', 'failed'].includes(a.status)), JSON.stringify(attempts.map((a) => a.status)));

    const { rows, counts } = await eventually(`${attempts.length} attempt outcomes in routing-risk`, async () => {
      const r = await recorded();
      return r.rows.length >= attempts.length ? r : undefined;
    });
    assert.equal(rows.length, attempts.length);
    const byAttempt = new Map(rows.map((r: any) => [r.attempt_id, r]));
    for (const a of attempts) {
      const r: any = byAttempt.get(a.id);
      assert.ok(r, `attempt ${a.id} recorded`);
      assert.equal(r.payment_id, a.payment_id);
      assert.equal(r.provider_account_id, a.provider_account_id);
      assert.equal(r.status, a.status);
      assert.equal(r.outcome, a.outcome);
      assert.equal(r.failure_category, a.failure?.category ?? null);
      assert.equal(r.latency_ms, a.latency_ms);
      assert.equal(r.payment_method, 'card');
      assert.equal(r.currency, 'EUR');
      assert.equal(r.country, 'DE');
      assert.equal(r.mode, 'test');
    }
    assert.deepEqual(counts.map(({ latency_count: _, ...c }: any) => c), expectedCounts());

    // Each event rides its payment's chain in the outbox, after the payment's own events of that change.
    const outbox = (await stack.query(
      `SELECT aggregate_id, payload FROM payments.outbox WHERE type = 'internal.attempt.settled'`,
    )).rows;
    assert.equal(outbox.length, attempts.length);
    for (const o of outbox) assert.equal(o.aggregate_id, o.payload.data.object.payment_id);
    // Internal events are never public: webhooks stored none.
    assert.equal((await stack.query(`SELECT count(*)::int AS n FROM webhooks.events WHERE type LIKE 'internal.%'`)).rows[0].n, 0);
  });

  test('delivered again (a re-published stream), every event changes nothing', async () => {
    const nats = stack.testBus.nats;
    assert.ok(nats, 'runs on real NATS JetStream');
    const before = await recorded();
    const outbox = (await stack.query(
      `SELECT event_id, type, payload FROM payments.outbox WHERE type = 'internal.attempt.settled'`,
    )).rows;
    assert.equal(outbox.length, attempts.length);
    // A new message id per copy: past JetStream's duplicate window the broker would take it again too.
    for (const o of outbox) {
      await stack.testBus.bus.publish({
        subject: `${nats.subjectPrefix}.${o.type}`, msgId: `${o.event_id}.again`, data: Buffer.from(JSON.stringify(o.payload)),
      });
    }
    await eventually('routing-risk consumed the copies', async () =>
      ((await stack.testBus.bus.pending!('routing-risk')) === 0 ? true : undefined));
    assert.deepEqual(await recorded(), before);
  });
});
