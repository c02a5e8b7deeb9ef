import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { DEMO_PROVIDERS } from '../services/contract/enums.js';
import { eventsOfMessage } from './helpers/bus.js';
import { requireInCi } from './helpers/database.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { eventually, startReceiver, type Receiver } from './webhooks-support.js';

// A payment decided within its request is one message on the bus for payment.created and its
// outcome (with the outcome's internal events), which the ledger, webhooks and routing-risk each
// receive and acknowledge once, while the merchant still gets payment.created, then
// payment.successful. payment.created waits in the outbox for the outcome at most
// PAYMENT_CREATED_HOLD_MS: a payment that waits for its customer, or for a slow provider, still
// has it sent promptly. Real Postgres, real JetStream, the real gateway and a real HTTP receiver.

requireInCi('NATS_URL');
const HOLD_MS = 1000;
const CONSUMERS = ['ledger', 'webhooks', 'routing-risk'];

describe('one message per synchronous outcome', () => {
  let stack: TestStack;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  const receivers: Receiver[] = [];

  before(async () => {
    // One request at a time per endpoint, so the order the receiver sees is the order of sending.
    stack = await startTestStack({ env: { PAYMENT_CREATED_HOLD_MS: String(HOLD_MS), WEBHOOK_ENDPOINT_CONCURRENCY: '1' } });
    nc = await connect({ servers: stack.testBus.nats!.url });
    jsm = await nc.jetstreamManager();
  });
  after(async () => {
    for (const r of receivers) await r.close();
    await nc?.close();
    await stack?.close();
  });

  const stream = () => stack.testBus.nats!.stream;

  /** A merchant whose demo providers approve every card after `latencyMs`, with an endpoint for the payment's events. */
  async function merchant(latencyMs: number) {
    const m = await stack.newMerchantKey('test');
    for (const provider of DEMO_PROVIDERS) {
      const set = await stack.manage('PUT', `/projects/${m.projectId}/demo-behaviour`, {
        mode: 'test', provider, payment_method: 'card', currency: 'EUR', approval_rate: 1, technical_error_rate: 0, latency_ms: latencyMs,
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
    }
    const receiver = await startReceiver(200);
    receivers.push(receiver);
    const endpoint = await stack.manage('POST', `/projects/${m.projectId}/webhook-endpoints`, {
      mode: 'test', url: receiver.url, events: ['payment.created', 'payment.processing', 'payment.successful'],
    });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    const pay = async (method = 'card') => {
      const res = await request(stack.baseUrl, 'POST', '/v1/payments', { key: m.secret, body: { amount: 1000, currency: 'EUR', payment_method: method } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    return { pay, receiver };
  }

  /** The stream's messages that carry events of the payment: each one's subject and the types it carries. */
  async function messagesAbout(paymentId: string): Promise<Array<{ subject: string; types: string[] }>> {
    const info = await jsm.streams.info(stream());
    const found: Array<{ subject: string; types: string[] }> = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const m = await jsm.streams.getMessage(stream(), { seq });
      const events = eventsOfMessage(m.subject, m.data, m.header?.get('Nats-Msg-Id')).map((e) => e.event);
      if (events.some((e) => e.data.object.id === paymentId || e.data.object.payment_id === paymentId)) {
        found.push({ subject: m.subject, types: events.map((e) => e.type) });
      }
    }
    return found;
  }

  /** Deliveries each consumer has been given so far (redeliveries included), once all is acknowledged. */
  async function deliveries(): Promise<Record<string, { delivered: number; redelivered: number }>> {
    await eventually(async () => {
      for (const c of CONSUMERS) {
        const info = await jsm.consumers.info(stream(), c);
        if (info.num_pending + info.num_ack_pending > 0) return undefined;
      }
      return true;
    }, 15_000, 'the consumers to acknowledge everything');
    const out: Record<string, { delivered: number; redelivered: number }> = {};
    for (const c of CONSUMERS) {
      const info = await jsm.consumers.info(stream(), c);
      out[c] = { delivered: info.delivered.consumer_seq, redelivered: info.num_redelivered };
    }
    return out;
  }

  const typesReceived = (r: Receiver) => r.received.map((x) => String(x.headers['svc-event-type']));

  test('a synchronous payment is one message, received once by each consumer; the merchant gets payment.created, then payment.successful', async () => {
    // The provider takes a while: the relay runs for other reasons meanwhile, and the created event waits.
    const { pay, receiver } = await merchant(300);
    const before = await deliveries();
    const payment = await pay();
    assert.equal(payment.status, 'successful', JSON.stringify(payment));

    await receiver.waitFor(2, 15_000);
    assert.deepEqual(typesReceived(receiver), ['payment.created', 'payment.successful']);
    assert.deepEqual(await messagesAbout(payment.id), [{
      subject: `${stack.testBus.nats!.subjectPrefix}.internal.pack`,
      types: ['payment.created', 'payment.successful', 'internal.attempt.settled', 'internal.payment.decided'],
    }]);
    const now = await deliveries();
    for (const c of CONSUMERS) {
      assert.equal(now[c].delivered - before[c].delivered, 1, `${c}: one delivery`);
      assert.equal(now[c].redelivered, before[c].redelivered, `${c}: no redelivery`);
    }
    // The ledger and routing-risk recorded what the message carried.
    await eventually(async () => ((await stack.query(
      'SELECT 1 FROM ledger.transactions WHERE entity_id = $1', [payment.id])).rowCount === 1 ? true : undefined), 10_000, 'the ledger');
    await eventually(async () => ((await stack.query(
      'SELECT 1 FROM routing_risk.attempt_outcomes WHERE payment_id = $1', [payment.id])).rowCount === 1 ? true : undefined), 10_000, 'routing-risk');
  });

  test('a payment waiting for its customer has payment.created sent at once, with payment.processing', async () => {
    const { pay, receiver } = await merchant(0);
    const payment = await pay('open_banking');
    const answered = performance.now();
    assert.equal(payment.status, 'processing', JSON.stringify(payment));
    const [created] = await receiver.waitFor(2, 15_000);
    assert.deepEqual(typesReceived(receiver), ['payment.created', 'payment.processing']);
    assert.ok(created.at - answered < HOLD_MS, `payment.created ${Math.round(created.at - answered)} ms after the answer`);
    assert.deepEqual((await messagesAbout(payment.id)).map((m) => m.types), [['payment.created', 'payment.processing']]);
  });

  test('a provider slower than the hold: payment.created goes alone when the hold ends, the outcome after it', async () => {
    const { pay, receiver } = await merchant(HOLD_MS + 1500);
    const started = performance.now();
    const paying = pay();
    const [created] = await receiver.waitFor(1, 15_000);
    const after = created.at - started;
    assert.equal(created.headers['svc-event-type'], 'payment.created');
    assert.ok(after >= HOLD_MS - 100 && after < HOLD_MS + 1000, `payment.created ${Math.round(after)} ms after the request (hold ${HOLD_MS} ms)`);
    const payment = await paying;
    assert.equal(payment.status, 'successful');
    await receiver.waitFor(2, 15_000);
    assert.deepEqual(typesReceived(receiver), ['payment.created', 'payment.successful']);
    assert.deepEqual((await messagesAbout(payment.id)).map((m) => m.types), [
      ['payment.created'], ['payment.successful', 'internal.attempt.settled', 'internal.payment.decided'],
    ]);
  });
});
