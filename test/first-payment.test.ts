import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { isInternalType } from '../services/platform/internal-events.js';
import { ISO_TIMESTAMP, expectNoPaymentCreated } from './helpers/api-assertions.js';
import { eventsOfMessage } from './helpers/bus.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';


describe('the first payment, through the HTTP gateway', () => {
  let stack: TestStack;
  let key: string;
  let other: string;

  before(async () => {
    stack = await startTestStack();
    key = (await stack.newMerchantKey('test')).secret;
    other = (await stack.newMerchantKey('test')).secret;
  });
  after(() => stack?.close());

  test('401 unauthorized without a bearer header, with request id in header and body', async () => {
    const variants: Record<string, string>[] = [{}, { authorization: 'Basic dXNlcjpwYXNz' }, { authorization: 'Bearer' }];
    for (const headers of variants) {
      const res = await request(stack.baseUrl, 'GET', '/v1/me', { headers });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.type, 'authentication_error');
      assert.equal(res.body.error.code, 'unauthorized');
      assert.match(res.headers.get('x-request-id')!, /^req_/);
      assert.equal(res.body.request_id, res.headers.get('x-request-id'));
    }
  });

  test('401 invalid_api_key for an unknown key', async () => {
    for (const bad of ['svc_sk_test_doesnotexist', 'sk_test_123', key.replace('svc_sk_test_', 'svc_sk_live_')]) {
      const res = await request(stack.baseUrl, 'GET', '/v1/me', { key: bad });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.type, 'authentication_error');
      assert.equal(res.body.error.code, 'invalid_api_key');
    }
  });

  test('GET /v1/me returns the identity the key fixes', async () => {
    const res = await request(stack.baseUrl, 'GET', '/v1/me', { key });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('x-request-id')!, /^req_/);
    assert.match(res.body.merchant.id, /^mer_/);
    assert.match(res.body.project.id, /^prj_/);
    assert.equal(res.body.mode, 'test');
    assert.match(res.body.api_key.id, /^key_/);
    assert.ok(key.startsWith(res.body.api_key.prefix));
    assert.ok(res.body.api_key.prefix.length < key.length / 2, 'only a short display prefix is exposed');
  });

  test('a successful payment is created with route, attempts, fee, risk and timestamps; GET returns it identically', async () => {
    const body = {
      amount: 1000,
      currency: 'eur',
      payment_method: 'card',
      country: 'de',
      customer: { email: 'ada@example.com', country: 'DE' },
      description: 'Order 42',
      reference: 'order_42',
      metadata: { cart: 'c_1' },
      test_scenario: 'success',
    };
    const created = await request(stack.baseUrl, 'POST', '/v1/payments', { key, body });
    assert.equal(created.status, 201);
    const p = created.body;
    assert.match(p.id, /^pay_/);
    assert.equal(p.object, 'payment');
    assert.equal(p.mode, 'test');
    assert.equal(p.status, 'successful');
    assert.equal(p.amount, 1000);
    assert.equal(p.currency, 'EUR');
    assert.equal(p.captured_amount, 1000);
    assert.equal(p.refunded_amount, 0);
    assert.equal(p.capture_method, 'automatic');
    assert.deepEqual(p.payment_method, { type: 'card', id: null });
    assert.equal(p.country, 'DE');
    assert.equal(p.description, 'Order 42');
    assert.equal(p.reference, 'order_42');
    assert.deepEqual(p.customer, { email: 'ada@example.com', country: 'DE' });
    assert.deepEqual(p.metadata, { cart: 'c_1' });
    assert.equal(p.failure, null);
    assert.equal(p.next_action, null);
    // Demo Gamma is cheapest for 10.00 EUR: 10 + 3.00% of 1000 = 40.
    assert.deepEqual(p.route.provider, { id: 'prv_demo_gamma', code: 'demo_gamma', name: 'Demo Gamma' });
    assert.equal(p.route.provider_account_id, 'pac_demo_gamma');
    assert.match(p.route.provider_payment_id, /^demo_gamma_/);
    assert.equal(p.route.attempts, 1);
    assert.match(p.route.routing_decision_id, /^rtd_/);
    assert.equal(p.route.rule, 'default');
    assert.match(p.risk.decision_id, /^rsk_/);
    assert.equal(p.risk.score, 0);
    assert.deepEqual(p.fee, { amount: 40, currency: 'EUR' });
    assert.equal(typeof p.processing_time_ms, 'number');
    assert.equal(p.attempts.length, 1);
    const a = p.attempts[0];
    assert.equal(a.attempt_number, 1);
    assert.equal(a.status, 'succeeded');
    assert.equal(a.outcome, 'success');
    assert.equal(a.provider_id, 'prv_demo_gamma');
    assert.equal(a.provider_name, 'Demo Gamma');
    assert.equal(a.provider_account_id, 'pac_demo_gamma');
    assert.equal(a.provider_payment_id, p.route.provider_payment_id);
    assert.equal(a.fee_amount, 40);
    assert.equal(typeof a.latency_ms, 'number');
    assert.equal(a.failure, null);
    for (const t of [p.created_at, p.updated_at, p.processed_at, a.created_at]) assert.match(t, ISO_TIMESTAMP);
    assert.deepEqual(Object.keys(p), [
      'id', 'object', 'mode', 'status', 'amount', 'currency', 'captured_amount', 'refunded_amount', 'capture_method',
      'payment_method', 'country', 'description', 'reference', 'customer', 'metadata', 'route', 'risk', 'failure',
      'next_action', 'fee', 'processing_time_ms', 'attempts', 'disputes', 'created_at', 'updated_at', 'processed_at',
    ]);

    const fetched = await request(stack.baseUrl, 'GET', `/v1/payments/${p.id}`, { key });
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.body, p);
  });

  test('a minimal payment gets nulls where the contract says "or null"', async () => {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 250, currency: 'USD', payment_method: { type: 'wallet' } },
    });
    assert.equal(res.status, 201);
    for (const field of ['country', 'description', 'reference', 'customer']) assert.equal(res.body[field], null, field);
    assert.deepEqual(res.body.metadata, {});
  });

  test('another project\'s key gets 404 for the payment, and an unknown id is 404', async () => {
    const created = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 500, currency: 'EUR', payment_method: 'card' },
    });
    for (const [k, id] of [[other, created.body.id], [key, 'pay_doesnotexist']]) {
      const res = await request(stack.baseUrl, 'GET', `/v1/payments/${id}`, { key: k });
      assert.equal(res.status, 404);
      assert.equal(res.body.error.type, 'not_found_error');
      assert.equal(res.body.error.code, 'resource_not_found');
    }
  });

  test('validation failures are 422 with the field path in error.param and create nothing', async () => {
    const cases: Array<[unknown, string]> = [
      [{ currency: 'EUR', payment_method: 'card' }, 'amount'],
      [{ amount: 0, currency: 'EUR', payment_method: 'card' }, 'amount'],
      [{ amount: 2 ** 53, currency: 'EUR', payment_method: 'card' }, 'amount'],
      [{ amount: 10, currency: 'EURO', payment_method: 'card' }, 'currency'],
      [{ amount: 10, currency: 'EUR', payment_method: { type: 'cheque' } }, 'payment_method.type'],
      [{ amount: 10, currency: 'EUR', payment_method: 'card', customer: { country: 'DEU' } }, 'customer.country'],
      [{ amount: 10, currency: 'EUR', payment_method: 'card', colour: 'blue' }, 'colour'],
    ];
    await expectNoPaymentCreated(stack, async () => {
      for (const [body, param] of cases) {
        const res = await request(stack.baseUrl, 'POST', '/v1/payments', { key, body });
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.equal(res.body.error.type, 'invalid_request_error');
        assert.equal(res.body.error.code, 'validation_error');
        assert.equal(res.body.error.param, param);
      }
    });
  });

  test('payment.created and payment.successful reach the bus with the event id as message id (a pack\'s: its first and last)', async (t) => {
    const created = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 1200, currency: 'GBP', payment_method: 'card' },
    });
    const seen: Array<{ type: string; event: any }> = [];
    // The payment's public events; the internal ones beside them (internal.payment.decided) are not the merchant's.
    const mine = () => seen.filter((s) => !isInternalType(s.type) && s.event.data.object.id === created.body.id);
    const nats = stack.testBus.nats;
    if (nats) {
      // Read the stream directly, as any JetStream consumer would.
      const nc: NatsConnection = await connect({ servers: nats.url });
      t.after(() => nc.close());
      const js = nc.jetstream();
      const jsm = await nc.jetstreamManager();
      await jsm.consumers.add(nats.stream, { durable_name: 'first_payment_test', ack_policy: 'explicit' as never });
      const consumer = await js.consumers.get(nats.stream, 'first_payment_test');
      const deadline = Date.now() + 10_000;
      while (mine().length < 2 && Date.now() < deadline) {
        const m = await consumer.next({ expires: 1000 });
        if (!m) continue;
        // Checked to be the event's id, or its pack's first and last event ids.
        for (const { event } of eventsOfMessage(m.subject, m.data, m.headers?.get('Nats-Msg-Id'))) seen.push({ type: event.type, event });
        m.ack();
      }
    } else {
      const sub = await stack.testBus.bus.consume('first_payment_test', ['>'], async (event) => {
        seen.push({ type: event.type, event });
      });
      t.after(() => sub.stop());
      const deadline = Date.now() + 10_000;
      while (mine().length < 2 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    assert.deepEqual(mine().map((s) => s.type).sort(), ['payment.created', 'payment.successful']);
    for (const s of mine()) {
      assert.match(s.event.id, /^evt_/);
      assert.equal(s.event.mode, 'test');
      assert.match(s.event.created_at, ISO_TIMESTAMP);
    }
    const successful = mine().find((s) => s.type === 'payment.successful')!.event;
    assert.deepEqual(successful.data.object, created.body, 'data.object is serialised like the API');
    assert.equal(mine().find((s) => s.type === 'payment.created')!.event.data.object.status, 'created');
  });
});
