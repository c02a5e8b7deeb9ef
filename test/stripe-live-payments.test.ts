// Live payments through the REST gateway to a Stripe account, the official SDK pointed at the
// local Stripe stand-in: the payment, a hard decline that stops, a 3-D Secure redirect with the
// merchant's return_url, and held funds captured in part, released, and refunded at Stripe.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createStripeConnector } from '../services/connectors/stripe/connector.js';
import type { CredentialSource } from '../services/payments/index.js';
import { sentUnder } from './helpers/connector-requests.js';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { request } from './helpers/stack.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';
import { STAND_IN_ORIGINS } from './helpers/stand-in-server.js';

const KEY = `sk_live_standin_${Date.now()}`;

describe('live payments at a Stripe account (stand-in)', () => {
  let stack: LicensedProviderStack;
  let stripe: StripeStandIn;

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [KEY] });
    // Every account of this test is the same Stripe account; the provider-accounts wiring keeps
    // them sealed in payments, which this test does not need to go through.
    const credentials: CredentialSource = {
      async get() {
        return { mode: 'live', values: { secret_key: KEY, webhook_secret: 'whsec_live', api_base_url: stripe.baseUrl } };
      },
    };
    stack = await startLicensedProviderStack({
      connectors: { stripe: createStripeConnector({ credentials, network: { allowlist: [STAND_IN_ORIGINS] } }) },
      paymentDefaults: { payment_method: { type: 'card', token: 'pm_card_visa' } },
    });
  });
  after(async () => {
    await stack?.close();
    await stripe?.close();
  });

  const merchantAtStripe = () => stack.liveMerchantAt('prv_stripe', { fixed: 25, bps: 140 });
  const sent = (key: string) => sentUnder(stripe.requests, key);

  test('a live payment is confirmed at Stripe under its attempt id', async () => {
    const m = await merchantAtStripe();
    const res = await stack.pay(m.secret, {});
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'successful');
    assert.equal(res.body.route.provider.code, 'stripe');
    const attempt = res.body.attempts[0];
    assert.match(attempt.provider_payment_id, /^pi_/);
    const [create] = sent(attempt.id);
    assert.deepEqual(create.params.metadata, { payment_id: res.body.id, attempt_id: attempt.id });
    assert.equal(create.params.amount, '2500');
    assert.equal(create.params.currency, 'eur');
  });

  test('a hard decline at Stripe fails the payment with the table\'s failure', async () => {
    const m = await merchantAtStripe();
    const res = await stack.pay(m.secret, { payment_method: { type: 'card', token: 'pm_card_chargeDeclinedInsufficientFunds' } });
    assert.equal(res.body.status, 'failed');
    assert.deepEqual(res.body.failure, { code: 'insufficient_funds', category: 'hard', message: 'The card has insufficient funds.', decline_reason: 'insufficient_funds' });
    assert.equal(res.body.attempts[0].outcome, 'hard_decline');
    assert.equal(res.body.attempts[0].provider_code, 'insufficient_funds');
  });

  test('3-D Secure: the customer is sent to Stripe\'s page, which returns to the merchant\'s return_url', async () => {
    const m = await merchantAtStripe();
    const res = await stack.pay(m.secret, {
      payment_method: { type: 'card', token: 'pm_card_authenticationRequired' }, return_url: 'https://shop.example/done',
    });
    assert.equal(res.body.status, 'processing', JSON.stringify(res.body));
    assert.equal(res.body.next_action.type, 'redirect');
    assert.equal(res.body.next_action.url, `${stripe.baseUrl}/3ds/${res.body.attempts[0].provider_payment_id}`);
    assert.equal(sent(res.body.attempts[0].id)[0].params.return_url, 'https://shop.example/done');
  });

  test('held funds: partial capture at Stripe, partial refund, and a release of another hold', async () => {
    const m = await merchantAtStripe();
    const held = await stack.pay(m.secret, { capture_method: 'manual' });
    assert.equal(held.body.status, 'authorized', JSON.stringify(held.body));
    const attempt = held.body.attempts[0];
    const captured = await request(stack.baseUrl, 'POST', `/v1/payments/${held.body.id}/capture`, { key: m.secret, body: { amount: 1500 } });
    assert.equal(captured.status, 200, JSON.stringify(captured.body));
    assert.equal(captured.body.status, 'captured');
    assert.deepEqual(sent(`${attempt.id}_capture`)[0].params, { amount_to_capture: '1500' });
    assert.equal(stripe.intents.get(attempt.provider_payment_id)!.amount_received, 1500);

    const refund = await request(stack.baseUrl, 'POST', `/v1/payments/${held.body.id}/refund`, { key: m.secret, body: { amount: 500 } });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.status, 'successful');
    assert.match(refund.body.provider_refund_id, /^re_/);
    assert.equal(sent(refund.body.id)[0].params.amount, '500');

    const other = await stack.pay(m.secret, { capture_method: 'manual' });
    const cancelled = await request(stack.baseUrl, 'POST', `/v1/payments/${other.body.id}/cancel`, { key: m.secret, body: {} });
    assert.equal(cancelled.body.status, 'cancelled');
    assert.equal(stripe.intents.get(other.body.attempts[0].provider_payment_id)!.status, 'canceled');
    assert.equal(sent(`${other.body.attempts[0].id}_cancel`).length, 1);
  });

  test('Stripe refusing a capture leaves the payment authorized and answers 409 provider_declined', async () => {
    const m = await merchantAtStripe();
    const held = await stack.pay(m.secret, { capture_method: 'manual' });
    // Released at Stripe behind our back (its seven-day expiry, or the dashboard).
    stripe.intents.get(held.body.attempts[0].provider_payment_id)!.status = 'canceled';
    const res = await request(stack.baseUrl, 'POST', `/v1/payments/${held.body.id}/capture`, { key: m.secret, body: {} });
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'provider_declined');
    assert.equal(res.body.error.type, 'provider_error');
    const now = await request(stack.baseUrl, 'GET', `/v1/payments/${held.body.id}`, { key: m.secret });
    assert.equal(now.body.status, 'authorized');
  });
});
