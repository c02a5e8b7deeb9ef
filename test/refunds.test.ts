import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { connect } from 'nats';
import { Health, HealthCheckResponse_ServingStatus } from '../proto/gen/grpc/health/v1/health_pb.js';
import { RefundsService } from '../proto/gen/svc/payments/v1/refunds_pb.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { ISO_TIMESTAMP, expectError } from './helpers/api-assertions.js';
import { eventsOfMessage } from './helpers/bus.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

const REFUND_FIELDS = [
  'id', 'object', 'payment_id', 'amount', 'currency', 'status', 'reason', 'provider_refund_id', 'failure', 'created_at',
];

describe('refunds, through the HTTP gateway', () => {
  let stack: TestStack;
  let key: string;
  let other: string;

  before(async () => {
    stack = await startTestStack();
    key = (await stack.newMerchantKey('test')).secret;
    other = (await stack.newMerchantKey('test')).secret;
  });
  after(() => stack?.close());

  async function pay(body: Record<string, unknown> = {}): Promise<any> {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 1000, currency: 'EUR', payment_method: 'card', ...body },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  }
  const refund = (paymentId: string, body?: unknown, k = key) =>
    request(stack.baseUrl, 'POST', `/v1/payments/${paymentId}/refund`, { key: k, body });
  const getPayment = async (id: string) => (await request(stack.baseUrl, 'GET', `/v1/payments/${id}`, { key })).body;

  test('without a body the whole captured amount is refunded; the payment becomes refunded', async () => {
    const p = await pay();
    const res = await refund(p.id);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const r = res.body;
    assert.deepEqual(Object.keys(r), REFUND_FIELDS);
    assert.match(r.id, /^rf_/);
    assert.equal(r.object, 'refund');
    assert.equal(r.payment_id, p.id);
    assert.equal(r.amount, 1000);
    assert.equal(r.currency, 'EUR');
    assert.equal(r.status, 'successful');
    assert.equal(r.reason, null);
    assert.match(r.provider_refund_id, new RegExp(`^${p.route.provider.code}_rf_`));
    assert.equal(r.failure, null);
    assert.match(r.created_at, ISO_TIMESTAMP);

    const after = await getPayment(p.id);
    assert.equal(after.status, 'refunded');
    assert.equal(after.captured_amount, 1000);
    assert.equal(after.refunded_amount, 1000);

    // Nothing is left: the state machine refuses a refunded payment.
    expectError(await refund(p.id), 409, 'state_error', 'invalid_state_transition', 'id');

    const timeline = await request(stack.baseUrl, 'GET', `/v1/payments/${p.id}/timeline`, { key });
    assert.equal(timeline.status, 200);
    const types = timeline.body.data.map((e: any) => e.type);
    const from = types.indexOf('refund.processing');
    assert.deepEqual(types.slice(from), [
      'refund.processing', 'refund.successful', 'payment.refunded', 'event.emitted', 'event.emitted',
    ]);
    assert.equal(timeline.body.data[from].data.refund_id, r.id);
  });

  test('partial refunds: partially_refunded, then refunded; never beyond the captured amount', async () => {
    const p = await pay();
    const first = await refund(p.id, { amount: 300, reason: 'damaged item', metadata: { ticket: 't_1' } });
    assert.equal(first.status, 201);
    assert.equal(first.body.amount, 300);
    assert.equal(first.body.reason, 'damaged item');
    assert.equal(first.body.status, 'successful');
    let now = await getPayment(p.id);
    assert.equal(now.status, 'partially_refunded');
    assert.equal(now.refunded_amount, 300);

    // More than the 700 left is refused and changes nothing.
    expectError(await refund(p.id, { amount: 701 }), 422, 'invalid_request_error', 'validation_error', 'amount');
    now = await getPayment(p.id);
    assert.equal(now.refunded_amount, 300);
    assert.equal(now.status, 'partially_refunded');

    const second = await refund(p.id, { amount: 200 });
    assert.equal(second.body.status, 'successful');
    assert.equal((await getPayment(p.id)).refunded_amount, 500);

    // The default is the rest.
    const rest = await refund(p.id, {});
    assert.equal(rest.status, 201);
    assert.equal(rest.body.amount, 500);
    now = await getPayment(p.id);
    assert.equal(now.status, 'refunded');
    assert.equal(now.refunded_amount, 1000);

    expectError(await refund(p.id, { amount: 1 }), 409, 'state_error', 'invalid_state_transition', 'id');
    const list = await request(stack.baseUrl, 'GET', `/v1/payments/${p.id}/refunds`, { key });
    assert.deepEqual(list.body.data.map((r: any) => r.amount), [500, 200, 300], 'newest first');
  });

  test('a failed, an authorized or a cancelled payment cannot be refunded (409 invalid_state_transition)', async () => {
    const failed = await pay({ test_scenario: 'hard_decline' });
    assert.equal(failed.status, 'failed');
    expectError(await refund(failed.id), 409, 'state_error', 'invalid_state_transition', 'id');

    const held = await pay({ capture_method: 'manual' });
    assert.equal(held.status, 'authorized');
    expectError(await refund(held.id, { amount: 100 }), 409, 'state_error', 'invalid_state_transition', 'id');

    const cancelled = await request(stack.baseUrl, 'POST', `/v1/payments/${held.id}/cancel`, { key, body: {} });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.status, 'cancelled');
    expectError(await refund(held.id), 409, 'state_error', 'invalid_state_transition', 'id');
    const list = await request(stack.baseUrl, 'GET', `/v1/payments/${held.id}/refunds`, { key });
    assert.deepEqual(list.body, { data: [] }, 'a refused refund leaves no record');
  });

  test('a partly captured payment is refundable up to its captured amount, not its amount', async () => {
    const held = await pay({ capture_method: 'manual' });
    const captured = await request(stack.baseUrl, 'POST', `/v1/payments/${held.id}/capture`, { key, body: { amount: 600 } });
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    assert.equal(captured.body.captured_amount, 600);
    expectError(await refund(held.id, { amount: 601 }), 422, 'invalid_request_error', 'validation_error', 'amount');
    const all = await refund(held.id);
    assert.equal(all.body.amount, 600);
    const now = await getPayment(held.id);
    assert.equal(now.status, 'refunded');
    assert.equal(now.refunded_amount, 600);
  });

  for (const [scenario, category] of [['technical_error', 'technical'], ['hard_decline', 'hard']] as const) {
    test(`test_scenario ${scenario}: the refund fails with a failure object; the payment's amounts are unchanged`, async () => {
      const p = await pay();
      const res = await refund(p.id, { amount: 400, test_scenario: scenario });
      assert.equal(res.status, 201, 'a rejected refund is a resource, not an HTTP error');
      assert.equal(res.body.status, 'failed');
      assert.equal(res.body.failure.category, category);
      assert.equal(typeof res.body.failure.code, 'string');
      assert.equal(typeof res.body.failure.message, 'string');
      const now = await getPayment(p.id);
      assert.equal(now.status, 'successful');
      assert.equal(now.refunded_amount, 0);
      assert.equal(now.captured_amount, 1000);
      assert.deepEqual((await request(stack.baseUrl, 'GET', `/v1/refunds/${res.body.id}`, { key })).body, res.body);
      // A failed refund holds nothing back: the whole amount is still refundable.
      const full = await refund(p.id, { test_scenario: 'success' });
      assert.equal(full.body.amount, 1000);
      assert.equal(full.body.status, 'successful');
    });
  }

  test('GET /v1/refunds/{id} and GET /v1/payments/{id}/refunds; 404 for unknown ids and for another project', async () => {
    const p = await pay();
    const created = (await refund(p.id, { amount: 100 })).body;
    const got = await request(stack.baseUrl, 'GET', `/v1/refunds/${created.id}`, { key });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, created);
    const list = await request(stack.baseUrl, 'GET', `/v1/payments/${p.id}/refunds`, { key });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body, { data: [created] });

    expectError(await request(stack.baseUrl, 'GET', '/v1/refunds/rf_doesnotexist', { key }), 404, 'not_found_error', 'resource_not_found', 'id');
    expectError(await request(stack.baseUrl, 'GET', '/v1/payments/pay_doesnotexist/refunds', { key }), 404, 'not_found_error', 'resource_not_found', 'id');
    expectError(await refund('pay_doesnotexist'), 404, 'not_found_error', 'resource_not_found', 'id');
    expectError(await request(stack.baseUrl, 'GET', `/v1/refunds/${created.id}`, { key: other }), 404, 'not_found_error', 'resource_not_found', 'id');
    expectError(await request(stack.baseUrl, 'GET', `/v1/payments/${p.id}/refunds`, { key: other }), 404, 'not_found_error', 'resource_not_found', 'id');
    expectError(await refund(p.id, { amount: 1 }, other), 404, 'not_found_error', 'resource_not_found', 'id');
    assert.equal((await getPayment(p.id)).refunded_amount, 100, 'the other project\'s attempt changed nothing');
  });

  test('concurrent refunds never exceed the captured amount', async () => {
    const p = await pay();
    const results = await Promise.all(Array.from({ length: 10 }, () => refund(p.id, { amount: 300 })));
    const ok = results.filter((r) => r.status === 201);
    for (const r of results.filter((x) => x.status !== 201)) {
      expectError(r, 422, 'invalid_request_error', 'validation_error', 'amount');
    }
    assert.ok(ok.every((r) => r.body.status === 'successful'));
    const total = ok.reduce((sum, r) => sum + r.body.amount, 0);
    assert.ok(total <= 1000, `refunded ${total} of 1000`);
    assert.equal(ok.length, 3, 'three of 300 fit into 1000, serialised by the payment lock');
    const now = await getPayment(p.id);
    assert.equal(now.refunded_amount, total);
    assert.equal(now.status, 'partially_refunded');
    const list = await request(stack.baseUrl, 'GET', `/v1/payments/${p.id}/refunds`, { key });
    assert.equal(list.body.data.length, ok.length, 'refused requests left no refund behind');
  });

  test('the payments part serves RefundsService and reports it healthy', async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: stack.serviceUrls.payments }));
    const res = await health.check({ service: RefundsService.typeName });
    assert.equal(res.status, HealthCheckResponse_ServingStatus.SERVING);
  });

  test('the service itself refuses test_scenario with a live scope and unknown scenarios', async () => {
    const refunds = createClient(RefundsService, createPeerTransport(stack.serviceUrls.payments, stack.internalToken));
    const scope = { merchantId: 'mer_x', projectId: 'prj_x', mode: 'live' };
    const codeOf = async (call: Promise<unknown>) => {
      const err = await call.then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof ConnectError, 'the call is refused');
      return [err.metadata.get('svc-error-code'), err.metadata.get('svc-error-param')];
    };
    assert.deepEqual(await codeOf(refunds.createRefund({ scope, paymentId: 'pay_x', testScenario: 'success' })),
      ['test_scenario_not_allowed', 'test_scenario']);
    assert.deepEqual(await codeOf(refunds.createRefund({ scope: { ...scope, mode: 'test' }, paymentId: 'pay_x', testScenario: 'timeout' })),
      ['validation_error', 'test_scenario']);
    assert.deepEqual(await codeOf(refunds.createRefund({ scope: { ...scope, mode: 'test' }, paymentId: 'pay_x', amount: 0n })),
      ['validation_error', 'amount']);
  });

  test('refund.successful, payment.refunded and refund.failed reach the bus, serialised like the API', async (t) => {
    const p = await pay();
    const failed = (await refund(p.id, { amount: 250, test_scenario: 'hard_decline' })).body;
    const ok = (await refund(p.id, { amount: 250 })).body;
    const payment = await getPayment(p.id);
    // The public events of the payment: the stream also carries internal ones, which name it too.
    const wanted = (e: any) => !e.type.startsWith('internal.') && (e.data.object.id === p.id || e.data.object.payment_id === p.id);
    const seen: any[] = [];
    const done = () => seen.filter((e) => e.type !== 'payment.created' && e.type !== 'payment.successful').length >= 3;
    const deadline = Date.now() + 10_000;
    const nats = stack.testBus.nats;
    if (nats) {
      const nc = await connect({ servers: nats.url });
      t.after(() => nc.close());
      const jsm = await nc.jetstreamManager();
      await jsm.consumers.add(nats.stream, { durable_name: 'refunds_test', ack_policy: 'explicit' as never });
      const consumer = await nc.jetstream().consumers.get(nats.stream, 'refunds_test');
      while (!done() && Date.now() < deadline) {
        const m = await consumer.next({ expires: 1000 });
        if (!m) continue;
        // The message id is checked: the event's id, or its pack's first and last event ids.
        for (const { event } of eventsOfMessage(m.subject, m.data, m.headers?.get('Nats-Msg-Id'))) if (wanted(event)) seen.push(event);
        m.ack();
      }
    } else {
      const sub = await stack.testBus.bus.consume('refunds_test', ['>'], async (event) => {
        if (wanted(event)) seen.push(event);
      });
      t.after(() => sub.stop());
      while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    }
    const byType = (type: string) => seen.filter((e) => e.type === type);
    assert.equal(byType('refund.failed').length, 1);
    assert.equal(byType('refund.successful').length, 1);
    assert.equal(byType('payment.refunded').length, 1);
    assert.deepEqual(byType('refund.failed')[0].data.object, failed);
    assert.deepEqual(byType('refund.successful')[0].data.object, ok);
    const refunded = byType('payment.refunded')[0];
    assert.deepEqual(refunded.data.object, payment);
    assert.equal(refunded.data.object.status, 'partially_refunded');
    assert.equal(refunded.data.object.refunded_amount, 250);
    for (const e of [...byType('refund.failed'), ...byType('refund.successful'), refunded]) {
      assert.match(e.id, /^evt_/);
      assert.equal(e.mode, 'test');
      assert.match(e.created_at, ISO_TIMESTAMP);
    }
  });
});
