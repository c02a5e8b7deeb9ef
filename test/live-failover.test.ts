// Live payments failing over between two licensed providers through the REST gateway: a project
// connects a Stripe account (Stripe stand-in) and an Adyen account (Adyen stand-in) with the
// management API, each pointed at its stand-in with api_base_url, and the shipped connectors
// (the PROVIDERS list) read the sealed credentials. A token is usable at its issuer only,
// so the card is a stored method holding a token of each: a soft decline at Stripe is tried again
// at Adyen with Adyen's token and succeeds; a hard decline stops at Stripe; the payment taken at
// Adyen is refunded there. A one-off Stripe token is never sent to Adyen.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { signedNotification, startAdyenStandIn, type AdyenStandIn } from './helpers/adyen-stand-in.js';
import { sentUnder } from './helpers/connector-requests.js';
import type { LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { adyenEu, startLiveStandIns, type LiveStandIns } from './helpers/live-stand-ins.js';
import { request } from './helpers/stack.js';
import type { StripeStandIn } from './helpers/stripe-stand-in.js';

const STRIPE_KEY = `sk_live_standin_${Date.now()}`;
const ADYEN_KEY = `AQE_live_standin_${Date.now()}`;
const MERCHANT = 'AcmeECOM';
const HMAC_KEY = randomBytes(32).toString('hex').toUpperCase();

describe('live failover from a Stripe account to an Adyen account (stand-ins)', () => {
  let live: LiveStandIns<{ adyen: AdyenStandIn }>;
  let stack: LicensedProviderStack;
  let stripe: StripeStandIn;
  let adyen: AdyenStandIn;

  before(async () => {
    live = await startLiveStandIns(STRIPE_KEY, { adyen: () => startAdyenStandIn({ apiKeys: [ADYEN_KEY], merchantAccounts: [MERCHANT] }) });
    ({ stack, stripe, adyen } = live);
  });
  after(() => live?.close());

  /** A verified merchant's live key, with Stripe (cheaper, so tried first) and Adyen connected live. */
  async function merchantAtBoth() {
    const m = await stack.newMerchantKey('live');
    const connect = (body: Record<string, unknown>) => stack.connectLive(m.projectId, body);
    const stripeAccount = await connect(live.stripeEu());
    const adyenAccount = await connect(adyenEu(adyen, { api_key: ADYEN_KEY, merchant_account: MERCHANT, hmac_key: HMAC_KEY }));
    return { ...m, stripeAccount, adyenAccount };
  }
  const pay = (key: string, token: string, body: Record<string, unknown> = {}) =>
    stack.pay(key, { payment_method: { type: 'card', token }, ...body });

  /** A stored card holding Stripe's token and Adyen's stored method id for it, paid with the live key. */
  const payStored = (key: string, stripeToken: string, adyenToken: string, body: Record<string, unknown> = {}) =>
    stack.payStored(key, [{ token: stripeToken, provider_code: 'stripe' }, { token: adyenToken, provider_code: 'adyen' }], body);

  test('both accounts answer svc provider test through their connectors', async () => {
    const m = await merchantAtBoth();
    for (const id of [m.stripeAccount, m.adyenAccount]) {
      const res = await stack.manage('POST', `/provider-accounts/${id}/test`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.ok, true, JSON.stringify(res.body));
    }
    assert.equal(adyen.requests.at(-1)!.path, '/paymentMethods');
  });

  test('a soft decline at Stripe fails over to Adyen, which takes the payment with its own token; it is refunded at Adyen', async () => {
    const m = await merchantAtBoth();
    const res = await payStored(m.secret, 'pm_card_chargeDeclined', 'standin_adyen_card');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    const [first, second] = res.body.attempts;
    assert.equal(res.body.attempts.length, 2);
    assert.equal(first.provider_account_id, m.stripeAccount);
    assert.equal(first.outcome, 'soft_decline');
    assert.equal(first.provider_code, 'generic_decline');
    assert.equal(second.provider_account_id, m.adyenAccount);
    assert.equal(second.outcome, 'success');
    assert.match(second.provider_payment_id, /^STANDIN/);
    assert.equal(res.body.route.provider.code, 'adyen');
    // Adyen got the attempt id as reference and Idempotency-Key, at its live path.
    const sent = sentUnder(adyen.requests, second.id);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].path, '/payments');
    assert.equal(sent[0].body.reference, second.id);
    assert.deepEqual(sent[0].body.amount, { currency: 'EUR', value: 2500 });
    assert.equal(sent[0].headers['x-api-key'], ADYEN_KEY);
    // Each provider was sent its own token, directly.
    assert.equal((sent[0].body as any).paymentMethod.storedPaymentMethodId, 'standin_adyen_card');
    assert.ok(!JSON.stringify(sent[0].body).includes('pm_card_chargeDeclined'));
    assert.deepEqual(res.body.attempts.map((a: any) => [a.path, a.vault]), [['direct', null], ['direct', null]]);
    assert.deepEqual(res.body.route.skipped, []);

    const refund = await request(stack.baseUrl, 'POST', `/v1/payments/${res.body.id}/refund`, { key: m.secret, body: { amount: 1000 } });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.status, 'successful');
    assert.match(refund.body.provider_refund_id, /^STANDIN/);
    const [refundSent] = sentUnder(adyen.requests, refund.body.id);
    assert.equal(refundSent.path, `/payments/${second.provider_payment_id}/refunds`);
    assert.deepEqual(refundSent.body, { amount: { currency: 'EUR', value: 1000 }, merchantAccount: MERCHANT, reference: refund.body.id });
    const now = await request(stack.baseUrl, 'GET', `/v1/payments/${res.body.id}`, { key: m.secret });
    assert.equal(now.body.status, 'partially_refunded');
  });

  test('a hard decline at Stripe stops: Adyen is never asked', async () => {
    const m = await merchantAtBoth();
    const before = adyen.requests.length;
    const res = await pay(m.secret, 'pm_card_chargeDeclinedInsufficientFunds');
    assert.equal(res.body.status, 'failed', JSON.stringify(res.body));
    assert.equal(res.body.attempts.length, 1);
    assert.equal(res.body.attempts[0].provider_account_id, m.stripeAccount);
    assert.deepEqual(res.body.failure, { code: 'insufficient_funds', category: 'hard', message: 'The card has insufficient funds.', decline_reason: 'insufficient_funds' });
    assert.equal(adyen.requests.length, before);
  });

  test('a soft refusal at Adyen after Stripe\'s soft decline fails the payment with Adyen\'s table row', async () => {
    const m = await merchantAtBoth();
    // Stripe declines softly (failover); Adyen refuses its token with 2 Refused (soft).
    const res = await payStored(m.secret, 'pm_card_chargeDeclined', 'standin_refused_2');
    assert.equal(res.body.status, 'failed', JSON.stringify(res.body));
    assert.equal(res.body.attempts.length, 2);
    assert.equal(res.body.attempts[1].outcome, 'soft_decline');
    assert.equal(res.body.attempts[1].provider_code, 'Refused:2');
    assert.deepEqual(res.body.failure, { code: 'card_declined', category: 'soft', message: 'The card was declined by its issuer without a reason.', decline_reason: 'generic_decline' });
  });

  test('a 3-D Secure redirect at Adyen is completed by Adyen\'s signed AUTHORISATION notification', async () => {
    const m = await merchantAtBoth();
    // Stripe declines softly (failover); Adyen asks the customer to authenticate.
    const res = await payStored(m.secret, 'pm_card_chargeDeclined', 'standin_3ds', { return_url: 'https://shop.example/done' });
    assert.equal(res.body.status, 'processing', JSON.stringify(res.body));
    const attempt = res.body.attempts[1];
    assert.equal(res.body.next_action.url, `${adyen.baseUrl}/3ds/${attempt.provider_payment_id}`);
    const body = signedNotification(HMAC_KEY, [{
      eventCode: 'AUTHORISATION', pspReference: attempt.provider_payment_id, merchantAccountCode: MERCHANT,
      merchantReference: attempt.id, amount: { value: 2500, currency: 'EUR' }, success: true,
    }], true);
    const post = (text: string) => fetch(`${stack.baseUrl}/providers/adyen/webhooks/${m.adyenAccount}`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: text,
    });
    const delivered = await post(body);
    assert.equal(delivered.status, 200);
    assert.equal(await delivered.text(), '[accepted]');
    const now = await request(stack.baseUrl, 'GET', `/v1/payments/${res.body.id}`, { key: m.secret });
    assert.equal(now.body.status, 'successful', JSON.stringify(now.body));
    // Adyen delivering it again changes nothing; a forged one is refused.
    assert.equal((await post(body)).status, 200);
    const forged = await post(signedNotification(randomBytes(32).toString('hex'), [{
      eventCode: 'AUTHORISATION', pspReference: attempt.provider_payment_id, merchantAccountCode: MERCHANT,
      merchantReference: attempt.id, amount: { value: 2500, currency: 'EUR' }, success: false, reason: 'FRAUD',
    }], true));
    assert.equal(forged.status, 400);
    const still = await request(stack.baseUrl, 'GET', `/v1/payments/${res.body.id}`, { key: m.secret });
    assert.equal(still.body.status, 'successful');
  });

  test('a one-off Stripe token is never sent to Adyen: Stripe\'s soft decline fails the payment, Adyen named as skipped', async () => {
    const m = await merchantAtBoth();
    const before = adyen.requests.length;
    const res = await pay(m.secret, 'pm_card_chargeDeclined');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'failed', JSON.stringify(res.body));
    assert.equal(res.body.attempts.length, 1);
    assert.equal(res.body.attempts[0].provider_account_id, m.stripeAccount);
    assert.equal(adyen.requests.length, before, 'Adyen is never sent the Stripe token');
    assert.deepEqual(res.body.route.skipped, [{
      provider_code: 'adyen', provider_name: 'Adyen', provider_account_id: m.adyenAccount, reason: 'no credential for Adyen',
    }]);
    assert.equal(res.body.failure.category, 'soft');
    assert.match(res.body.failure.message, /Not tried: no credential for Adyen\.$/);
    const timeline = (await request(stack.baseUrl, 'GET', `/v1/payments/${res.body.id}/timeline`, { key: m.secret })).body.data;
    const decided = timeline.find((t: any) => t.type === 'routing.decided');
    assert.deepEqual(decided.data.candidates, ['stripe']);
    assert.match(decided.description, /Never tried: no credential for Adyen\./);
    const started = timeline.find((t: any) => t.type === 'attempt.started');
    assert.equal(started.data.path, 'direct');
  });

  test('provider_code binds a one-off token to its issuer; a live token of unknown issuer is 422 and nothing is created', async () => {
    const m = await merchantAtBoth();
    const before = stripe.requests.length;
    const res = await pay(m.secret, 'standin_adyen_card', {});
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'validation_error');
    assert.equal(res.body.error.param, 'payment_method.provider_code');
    const list = await request(stack.baseUrl, 'GET', '/v1/payments', { key: m.secret });
    assert.equal(list.body.data.length, 0);
    const bound = await stack.pay(m.secret, { payment_method: { type: 'card', token: 'standin_adyen_card', provider_code: 'adyen' } });
    assert.equal(bound.body.status, 'successful', JSON.stringify(bound.body));
    assert.deepEqual(bound.body.attempts.map((a: any) => a.provider_account_id), [m.adyenAccount]);
    assert.deepEqual(bound.body.route.skipped.map((k: any) => k.reason), ['no credential for Stripe']);
    assert.equal(stripe.requests.length, before, 'Stripe is never sent the Adyen token');
  });
});
