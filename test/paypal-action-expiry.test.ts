// When PayPal's webhook never comes: a live wallet payment waits on PayPal's approval page, and at
// the action's expiry (30 minutes, the connector's approval window) reconciliation asks PayPal. One
// customer approved there unseen: the order is captured then, once, and the payment completes. The
// other never approved: nothing is held at PayPal, nothing is captured, and the payment expires.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { startPayPalStandIn, type PayPalStandIn } from './helpers/paypal-stand-in.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';

const CLIENT_ID = `AExp${randomBytes(12).toString('hex')}`;
const SECRET = `EExp${randomBytes(12).toString('hex')}`;
const WEBHOOK_ID = `WH${randomBytes(8).toString('hex').toUpperCase()}`;
const MINUTE = 60_000;

describe('a PayPal approval whose webhook never comes', () => {
  const clock = offsetClock();
  let stack: TestStack;
  let pp: PayPalStandIn;

  before(async () => {
    pp = await startPayPalStandIn({ clients: { [CLIENT_ID]: SECRET }, webhookIds: { [CLIENT_ID]: WEBHOOK_ID } });
    stack = await startTestStack({
      clock, env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex'), RECONCILIATION_SWEEP_MS: '100' },
    });
  });
  after(async () => {
    await stack?.close();
    await pp?.close();
  });

  test('reconciliation asks PayPal: an approved order is captured and completes the payment, an abandoned one expires', async () => {
    const m = await stack.newMerchantKey('live');
    const connected = await stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      provider: 'paypal', mode: 'live', name: 'PayPal',
      credentials: { client_id: CLIENT_ID, client_secret: SECRET, webhook_id: WEBHOOK_ID, api_base_url: pp.baseUrl },
    });
    assert.equal(connected.status, 201, JSON.stringify(connected.body));
    const wallet = async () => (await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: m.secret, body: { amount: 2500, currency: 'EUR', return_url: 'https://shop.example/done', payment_method: { type: 'wallet' } },
    })).body;
    const paid = await wallet();
    const abandoned = await wallet();
    assert.deepEqual([paid.status, abandoned.status], ['processing', 'processing'], JSON.stringify(paid));
    const paidOrder = paid.attempts[0].provider_payment_id;
    const abandonedOrder = abandoned.attempts[0].provider_payment_id;
    pp.approve(paidOrder);

    // Before the expiry nothing asks PayPal, and nothing ends either payment.
    await new Promise((r) => setTimeout(r, 400));
    const get = (id: string) => request(stack.baseUrl, 'GET', `/v1/payments/${id}`, { key: m.secret });
    assert.equal((await get(paid.id)).body.status, 'processing');
    assert.equal(pp.requests.filter((r) => r.path.endsWith('/capture')).length, 0);

    clock.offsetMs += 31 * MINUTE;
    const settled = (id: string) => eventually(`payment ${id} settled`, async () => {
      const p = (await get(id)).body;
      return p.status === 'processing' ? undefined : p;
    });
    const done = await settled(paid.id);
    assert.equal(done.status, 'successful', JSON.stringify(done));
    const entries = (await request(stack.baseUrl, 'GET', `/v1/payments/${paid.id}/timeline`, { key: m.secret })).body.data as any[];
    assert.deepEqual(entries.find((e) => e.type === 'customer_action.completed').data, { outcome: 'approved', by: 'reconciliation' });
    const captures = pp.requests.filter((r) => r.path === `/v2/checkout/orders/${paidOrder}/capture`);
    assert.equal(captures.length, 1);
    assert.equal(captures[0].headers['paypal-request-id'], `${paid.attempts[0].id}-capture`);

    const expired = await settled(abandoned.id);
    assert.equal(expired.status, 'failed');
    assert.equal(expired.failure.code, 'customer_action_expired');
    assert.equal(pp.orders.get(abandonedOrder)!.status, 'PAYER_ACTION_REQUIRED');
    assert.equal(pp.requests.filter((r) => r.path.startsWith(`/v2/checkout/orders/${abandonedOrder}/`)).length, 0, 'nothing captured or authorized');
  });
});
