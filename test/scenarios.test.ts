import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ISO_TIMESTAMP } from './helpers/api-assertions.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';


// For a card payment of 10.00 EUR the default rule orders the demo providers by fee:
// Gamma 10 + 3.00% = 40, Beta 20 + 2.50% = 45, Alpha 30 + 2.90% = 59.
const GAMMA = 'prv_demo_gamma';
const BETA = 'prv_demo_beta';
const ALPHA = 'prv_demo_alpha';
const FEE: Record<string, number> = { [GAMMA]: 40, [BETA]: 45, [ALPHA]: 59 };

type Row = [outcome: string, status: string, provider: string, providerCode: string | null];

interface Expected {
  status: string;
  failure: [code: string, category: string] | null;
  attempts: Row[];
}

const EXPECTED: Record<string, Expected> = {
  success: { status: 'successful', failure: null, attempts: [['success', 'succeeded', GAMMA, 'approved']] },
  failover: {
    status: 'successful', failure: null,
    attempts: [['soft_decline', 'failed', GAMMA, 'do_not_honor'], ['success', 'succeeded', BETA, 'approved']],
  },
  timeout: {
    status: 'successful', failure: null,
    attempts: [['timeout', 'failed', GAMMA, null], ['success', 'succeeded', BETA, 'approved']],
  },
  timeout_recovered: { status: 'successful', failure: null, attempts: [['success', 'succeeded', GAMMA, 'approved']] },
  unavailable: {
    status: 'successful', failure: null,
    attempts: [['provider_unavailable', 'failed', GAMMA, 'service_unavailable'], ['success', 'succeeded', BETA, 'approved']],
  },
  hard_decline: { status: 'failed', failure: ['hard_decline', 'hard'], attempts: [['hard_decline', 'failed', GAMMA, 'stolen_card']] },
  soft_decline: {
    status: 'failed', failure: ['soft_decline', 'soft'],
    attempts: [GAMMA, BETA, ALPHA].map((p): Row => ['soft_decline', 'failed', p, 'do_not_honor']),
  },
  all_fail: {
    status: 'failed', failure: ['provider_error', 'technical'],
    attempts: [GAMMA, BETA, ALPHA].map((p): Row => ['technical_error', 'failed', p, 'processing_error']),
  },
  // Succeeds like success; its chargeback opens later (test/disputes.test.ts).
  dispute: { status: 'successful', failure: null, attempts: [['success', 'succeeded', GAMMA, 'approved']] },
  // As timeout; the first provider's late charge is returned later (test/late-success.test.ts).
  late_success: {
    status: 'successful', failure: null,
    attempts: [['timeout', 'failed', GAMMA, null], ['success', 'succeeded', BETA, 'approved']],
  },
};

const CATEGORY: Record<string, string> = {
  soft_decline: 'soft', hard_decline: 'hard', technical_error: 'technical', timeout: 'technical', provider_unavailable: 'technical',
};

describe('sandbox scenarios, through the HTTP gateway', () => {
  let stack: TestStack;
  let key: string;
  let other: string;
  let liveKey: string;
  const created: Record<string, any> = {};

  const pay = async (test_scenario: string, extra: Record<string, unknown> = {}) => {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 1000, currency: 'EUR', payment_method: 'card', test_scenario, ...extra },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };
  const timeline = async (id: string, k = key) => request(stack.baseUrl, 'GET', `/v1/payments/${id}/timeline`, { key: k });

  before(async () => {
    stack = await startTestStack();
    key = (await stack.newMerchantKey('test')).secret;
    other = (await stack.newMerchantKey('test')).secret;
    liveKey = (await stack.newMerchantKey('live')).secret;
    for (const name of Object.keys(EXPECTED)) created[name] = await pay(name);
  });
  after(() => stack?.close());

  for (const [name, want] of Object.entries(EXPECTED)) {
    test(`${name}: ${want.status}, ${want.attempts.length} attempt(s), each recorded`, async () => {
      const p = created[name];
      assert.equal(p.status, want.status);
      assert.deepEqual(p.failure && [p.failure.code, p.failure.category], want.failure);
      if (p.failure) assert.ok(p.failure.message);
      assert.deepEqual(
        p.attempts.map((a: any): Row => [a.outcome, a.status, a.provider_id, a.provider_code]),
        want.attempts,
      );
      assert.deepEqual(p.attempts.map((a: any) => a.attempt_number), want.attempts.map((_, i) => i + 1));
      assert.equal(p.route.attempts, want.attempts.length);
      const last = p.attempts.at(-1);
      assert.equal(p.route.provider.id, last.provider_id, 'the route names the last provider tried');
      assert.equal(p.route.provider_account_id, last.provider_account_id);
      assert.equal(typeof p.processing_time_ms, 'number');
      for (const a of p.attempts) {
        assert.equal(typeof a.latency_ms, 'number');
        assert.ok(a.provider_message, 'every answer carries the provider message');
        assert.match(a.created_at, ISO_TIMESTAMP);
        if (a.status === 'succeeded') {
          assert.equal(a.fee_amount, FEE[a.provider_id], 'the successful attempt carries its fee');
          assert.equal(a.failure, null);
        } else {
          assert.equal(a.fee_amount, 0, 'no fee on an attempt that did not succeed');
          assert.equal(a.failure.category, CATEGORY[a.outcome]);
        }
      }
      const won = p.attempts.find((a: any) => a.status === 'succeeded');
      assert.deepEqual(p.fee, { amount: won ? won.fee_amount : 0, currency: 'EUR' });
      assert.equal(p.route.provider_payment_id, won ? won.provider_payment_id : null);
      assert.equal(p.captured_amount, won ? 1000 : 0);
      if (won) assert.match(p.processed_at, ISO_TIMESTAMP);

      const fetched = await request(stack.baseUrl, 'GET', `/v1/payments/${p.id}`, { key });
      assert.equal(fetched.status, 200);
      assert.deepEqual(fetched.body, p, 'GET returns the payment the create answered');
    });
  }

  test('timeout_recovered charges once: one succeeded attempt, the second provider never called', async () => {
    const p = created.timeout_recovered;
    assert.equal(p.attempts.filter((a: any) => a.status === 'succeeded').length, 1);
    assert.deepEqual(p.attempts.map((a: any) => a.provider_id), [GAMMA]);
    assert.match(p.attempts[0].provider_payment_id, /^demo_gamma_/);
    const types = (await timeline(p.id)).body.data.map((e: any) => e.type);
    assert.deepEqual(types.filter((t: string) => t.startsWith('attempt.') || t === 'failover'), [
      'attempt.started', 'attempt.timed_out', 'attempt.status_checked', 'attempt.succeeded',
    ]);
  });

  test('timeout fails over only after the status query said the provider never received it', async () => {
    const events = (await timeline(created.timeout.id)).body.data;
    const checked = events.find((e: any) => e.type === 'attempt.status_checked');
    assert.equal(checked.attempt_id, created.timeout.attempts[0].id);
    assert.equal(checked.data.found, false);
    assert.ok(events.indexOf(checked) < events.findIndex((e: any) => e.type === 'failover'));
  });

  test('hard_decline never tries a second provider', async () => {
    const events = (await timeline(created.hard_decline.id)).body.data;
    assert.equal(events.filter((e: any) => e.type === 'attempt.started').length, 1);
    assert.equal(events.filter((e: any) => e.type === 'failover').length, 0);
  });

  test('with a single eligible provider the first provider\'s failure is final', async () => {
    // bank_transfer: only Demo Beta; qr: only Demo Gamma.
    const cases: Array<[string, string, string, string, string]> = [
      ['failover', 'bank_transfer', BETA, 'soft_decline', 'soft'],
      ['timeout', 'qr', GAMMA, 'provider_timeout', 'technical'],
      ['unavailable', 'qr', GAMMA, 'provider_unavailable', 'technical'],
    ];
    for (const [scenario, method, provider, code, category] of cases) {
      const p = await pay(scenario, { payment_method: method });
      assert.equal(p.status, 'failed', scenario);
      assert.deepEqual([p.failure.code, p.failure.category], [code, category], scenario);
      assert.deepEqual(p.attempts.map((a: any) => a.provider_id), [provider], scenario);
      assert.equal(p.fee.amount, 0);
    }
  });

  test('a payment without test_scenario plays success', async () => {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 1000, currency: 'EUR', payment_method: 'card' },
    });
    assert.equal(res.body.status, 'successful');
    assert.equal(res.body.attempts.length, 1);
  });

  test('the timeline of a failover payment narrates it in order', async () => {
    const p = created.failover;
    const res = await timeline(p.id);
    assert.equal(res.status, 200);
    assert.equal(res.body.payment_id, p.id);
    const events = res.body.data;
    assert.deepEqual(events.map((e: any) => e.type), [
      'payment.created', 'risk.evaluated', 'routing.decided', 'attempt.started', 'event.emitted',
      'attempt.failed', 'failover', 'attempt.started',
      'attempt.succeeded', 'payment.successful', 'event.emitted',
    ]);
    const [first, second] = p.attempts.map((a: any) => a.id);
    assert.deepEqual(events.map((e: any) => e.attempt_id), [null, null, null, first, null, first, first, second, second, null, null]);
    assert.deepEqual(events.filter((e: any) => e.type === 'event.emitted').map((e: any) => e.data.event_type),
      ['payment.created', 'payment.successful']);
    for (const e of events.filter((x: any) => x.type === 'event.emitted')) assert.match(e.data.event_id, /^evt_/);
    assert.deepEqual(events.find((e: any) => e.type === 'failover').data,
      { reason: 'soft_decline', from_provider: 'demo_gamma', to_provider: 'demo_beta' });
    assert.equal(events.find((e: any) => e.type === 'routing.decided').data.candidates.length, 3);
    for (const e of events) {
      assert.deepEqual(Object.keys(e), ['id', 'type', 'title', 'description', 'attempt_id', 'data', 'created_at']);
      assert.match(e.id, /^tle_/);
      assert.ok(e.title);
      assert.ok(typeof e.description === 'string' && e.description.length > 0, `${e.type} has a description`);
      assert.match(e.created_at, ISO_TIMESTAMP);
    }
    const times = events.map((e: any) => e.created_at);
    assert.deepEqual([...times].sort(), times, 'in time order');
  });

  test('a failed payment\'s timeline ends with payment.failed and its event', async () => {
    const types = (await timeline(created.all_fail.id)).body.data.map((e: any) => e.type);
    assert.deepEqual(types.slice(-2), ['payment.failed', 'event.emitted']);
    assert.equal(types.filter((t: string) => t === 'failover').length, 2);
  });

  test('the timeline of another project\'s payment, or of an unknown id, is 404', async () => {
    for (const [k, id] of [[other, created.success.id], [key, 'pay_doesnotexist']]) {
      const res = await timeline(id, k);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.type, 'not_found_error');
      assert.equal(res.body.error.code, 'resource_not_found');
    }
  });

  test('GET /v1/test/scenarios lists the ten scenarios with what each does', async () => {
    const res = await request(stack.baseUrl, 'GET', '/v1/test/scenarios', { key });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.map((s: any) => s.name), Object.keys(EXPECTED));
    for (const s of res.body.data) {
      assert.deepEqual(Object.keys(s), ['name', 'description']);
      assert.ok(s.description.length > 40, s.name);
    }
  });

  test('GET /v1/test/scenarios with a live key is 403 forbidden', async () => {
    const res = await request(stack.baseUrl, 'GET', '/v1/test/scenarios', { key: liveKey });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.type, 'permission_error');
    assert.equal(res.body.error.code, 'forbidden');
  });
});
