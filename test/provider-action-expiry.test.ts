// When Stripe's notification never comes: a live 3-D Secure payment waits on Stripe's own
// page, and at the action's expiry reconciliation asks Stripe instead of assuming. One customer
// paid there unseen: the payment completes. The other never did: the PaymentIntent is cancelled
// at Stripe first, so nobody can pay it any more, and then the payment expires.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';

const KEY = `sk_live_standin_${randomBytes(8).toString('hex')}`;
const MINUTE = 60_000;

describe('a provider action that expires without a notification', () => {
  const clock = offsetClock();
  let stack: TestStack;
  let stripe: StripeStandIn;

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [KEY] });
    stack = await startTestStack({
      clock, env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex'), RECONCILIATION_SWEEP_MS: '100' },
    });
  });
  after(async () => {
    await stack?.close();
    await stripe?.close();
  });

  test('reconciliation asks Stripe: a payment made on its page completes, an abandoned one is cancelled there and expires', async () => {
    const m = await stack.newMerchantKey('live');
    const connected = await stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      provider: 'stripe', mode: 'live', name: 'Stripe EU',
      credentials: { secret_key: KEY, webhook_secret: `whsec_${randomBytes(16).toString('hex')}`, api_base_url: stripe.baseUrl },
    });
    assert.equal(connected.status, 201, JSON.stringify(connected.body));
    const threeDs = async () => (await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: m.secret,
      body: {
        amount: 2500, currency: 'EUR', return_url: 'https://shop.example/done',
        payment_method: { type: 'card', token: 'pm_card_authenticationRequired' },
      },
    })).body;
    const paid = await threeDs();
    const abandoned = await threeDs();
    assert.deepEqual([paid.status, abandoned.status], ['processing', 'processing']);
    stripe.completeAuthentication(paid.attempts[0].provider_payment_id);

    // Before the expiry nothing asks Stripe, and nothing ends either payment.
    await new Promise((r) => setTimeout(r, 400));
    const get = (id: string) => request(stack.baseUrl, 'GET', `/v1/payments/${id}`, { key: m.secret });
    assert.equal((await get(paid.id)).body.status, 'processing');

    clock.offsetMs += 16 * MINUTE;
    const settled = (id: string) => eventually(`payment ${id} settled`, async () => {
      const p = (await get(id)).body;
      return p.status === 'processing' ? undefined : p;
    });
    const done = await settled(paid.id);
    assert.equal(done.status, 'successful');
    const entries = (await request(stack.baseUrl, 'GET', `/v1/payments/${paid.id}/timeline`, { key: m.secret })).body.data as any[];
    const completed = entries.find((e) => e.type === 'customer_action.completed');
    assert.deepEqual(completed.data, { outcome: 'approved', by: 'reconciliation' });
    assert.match(completed.description, /No notification came before the action expired/);

    const expired = await settled(abandoned.id);
    assert.equal(expired.status, 'failed');
    assert.equal(expired.failure.code, 'customer_action_expired');
    const intent = stripe.intents.get(abandoned.attempts[0].provider_payment_id)!;
    assert.equal(intent.status, 'canceled');
    const cancels = stripe.requests.filter((r) => r.path === `/v1/payment_intents/${intent.id}/cancel`);
    assert.equal(cancels.length, 1);
    assert.equal(cancels[0].headers['idempotency-key'], `${abandoned.attempts[0].id}_expire`);
  });
});
