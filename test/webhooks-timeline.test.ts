// A payment's timeline through the real gateway narrates its webhooks as they happen: delivered,
// failed with the receiver's status, exhausted, resent; every entry described, all in time order.
// Attempts go to a real HTTP receiver; the stack's clock is moved past the first retry's delay.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';
import { eventually, startReceiver, type Receiver } from './webhooks-support.js';

const clock = offsetClock();

describe('the payment timeline narrates webhooks', () => {
  let stack: TestStack;
  let receiver: Receiver;
  let merchant: Awaited<ReturnType<TestStack['newMerchantKey']>>;
  // payment.successful fails until the test says otherwise; every other event is accepted.
  let failing = true;

  before(async () => {
    // Two attempts: the scheduled retry of a failure is already the last.
    stack = await startTestStack({ clock, env: { WEBHOOK_MAX_ATTEMPTS: '2', WEBHOOK_POLL_MS: '50' } });
    receiver = await startReceiver((r) => (failing && r.headers['svc-event-type'] === 'payment.successful' ? 500 : 200));
    merchant = await stack.newMerchantKey('test');
  });
  after(async () => {
    await receiver?.close();
    await stack?.close();
  });

  const deliveries = `/projects/${'{project}'}/webhook-deliveries`;
  const manage = (method: string, path: string) => stack.manage(method, path.replace('{project}', merchant.projectId));
  const api = (method: string, path: string, body?: unknown) => request(stack.baseUrl, method, path, { key: merchant.secret, body });

  async function deliveryOf(eventType: string, status: string) {
    return eventually(async () => {
      const [d] = (await manage('GET', `${deliveries}?mode=test&event_type=${eventType}`)).body.data;
      return d?.status === status ? d : undefined;
    }, 15_000, `${eventType} ${status}`);
  }

  test('delivered, failed (HTTP 500), resent, exhausted, resent again, a refund\'s event: in order, each described', async () => {
    const created = await stack.manage('POST', `/projects/${merchant.projectId}/webhook-endpoints`, {
      mode: 'test', url: receiver.url, events: ['payment.created', 'payment.successful', 'refund.successful'],
    });
    assert.equal(created.status, 201);
    const payment = (await api('POST', '/v1/payments', { amount: 1250, currency: 'EUR', payment_method: 'card' })).body;
    assert.equal(payment.status, 'successful');
    await receiver.waitFor(2);
    await deliveryOf('payment.created', 'succeeded');
    const failed = await deliveryOf('payment.successful', 'failed');

    // A resend that fails too: the retry stays where it was.
    const resent = await manage('POST', `${deliveries}/${failed.id}/resend?mode=test`);
    assert.equal(resent.status, 200);
    assert.equal(resent.body.status, 'failed');
    assert.equal(resent.body.next_attempt_at, failed.next_attempt_at);
    assert.equal(resent.body.attempt.response_status, 500);

    // The scheduled retry, the last of two, exhausts it; then a resend that is answered 200.
    clock.offsetMs += 30_000;
    await receiver.waitFor(4);
    await deliveryOf('payment.successful', 'exhausted');
    failing = false;
    assert.equal((await manage('POST', `${deliveries}/${failed.id}/resend?mode=test`)).body.status, 'succeeded');

    // A refund's event is about the payment too.
    assert.equal((await api('POST', `/v1/payments/${payment.id}/refund`, { amount: 250 })).body.status, 'successful');
    await deliveryOf('refund.successful', 'succeeded');

    const timeline = await api('GET', `/v1/payments/${payment.id}/timeline`);
    assert.equal(timeline.status, 200);
    const entries: any[] = timeline.body.data;
    const webhooks = entries.filter((e) => e.type.startsWith('webhook.'));
    const about = (type: string) => webhooks.filter((e) => e.data.event_type === type);
    assert.deepEqual(about('payment.created').map((e) => e.type), ['webhook.delivered']);
    assert.deepEqual(about('refund.successful').map((e) => e.type), ['webhook.delivered']);
    const successful = about('payment.successful');
    assert.deepEqual(successful.map((e) => [e.type, e.data.attempt, e.data.manual, e.data.response_status]), [
      ['webhook.failed', 1, false, 500],
      ['webhook.resent', 2, true, 500],
      ['webhook.exhausted', 3, false, 500],
      ['webhook.resent', 4, true, 200],
    ]);
    assert.match(successful[0].title, /failed: HTTP 500/);
    assert.match(successful[0].description, /HTTP 500/);
    assert.match(successful[0].description, /next attempt is due at/);
    assert.match(successful[1].title, /resent: HTTP 500/);
    assert.match(successful[2].title, /exhausted/);
    assert.match(successful[2].description, /last automatic attempt/);
    assert.match(successful[3].title, /resent: delivered/);
    for (const e of webhooks) {
      assert.equal(e.attempt_id, null);
      assert.equal(e.data.url, receiver.url);
      assert.match(e.id, /^wha_/);
    }

    // Every entry, the payments part's and the webhooks part's, has a description; all in time order.
    for (const e of entries) {
      assert.ok(typeof e.description === 'string' && e.description.length > 0, `${e.type} is described`);
      assert.deepEqual(Object.keys(e), ['id', 'type', 'title', 'description', 'attempt_id', 'data', 'created_at']);
    }
    const times = entries.map((e) => e.created_at);
    assert.deepEqual([...times].sort(), times, 'in time order');
    const emitted = entries.findIndex((e) => e.type === 'event.emitted' && e.data.event_type === 'payment.successful');
    assert.ok(emitted >= 0 && emitted < entries.indexOf(successful[0]), 'an event is emitted before it is delivered');
    // Money reads as money in the refund's entries.
    assert.match(entries.find((e) => e.type === 'refund.processing').description, /2\.50 EUR/);
    assert.match(entries.find((e) => e.type === 'payment.created').description, /12\.50 EUR/);
  });

  test('an unknown payment\'s timeline is 404, whatever the webhooks part holds', async () => {
    const res = await api('GET', '/v1/payments/pay_doesnotexist/timeline');
    assert.equal(res.status, 404);
  });
});
