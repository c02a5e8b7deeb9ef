// Recurring payments across providers through the REST gateway with live keys:
// a payment the customer makes in person keeps the scheme's network transaction id the provider
// answered (Stripe's charge, Adyen's networkTxReference) on the stored card; a later
// merchant-initiated payment (`merchant_initiated: true`) sends it to whichever provider takes it,
// so a subscription charge soft-declined at Stripe is taken by Adyen through Stripe's Forwarding
// API. A merchant-initiated payment without that id, or with a bad field, is refused and writes nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectError, expectNoPaymentCreated } from './helpers/api-assertions.js';
import { sentUnder } from './helpers/connector-requests.js';
import { request } from './helpers/stack.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { startForwardingWorld, uniqueCardNumber, type ForwardingWorld, type VaultedTestCard } from './helpers/vault-forwarding-world.js';

// The stack publishes to real JetStream (the card-data grep reads its stream): CI's, or one of the file's own.
const { url: natsUrl } = await jetStreamForFile();

const DECLINED_AT_STRIPE = 'pm_card_chargeDeclined';
const CARD: VaultedTestCard = { number: uniqueCardNumber(), expMonth: '04', expYear: '2036', cvc: '482', name: 'Grace Hopper' };

describe('recurring payments: network transaction ids and merchant-initiated payments (stand-ins)', () => {
  let world: ForwardingWorld;

  before(async () => {
    world = await startForwardingWorld({ natsUrl, tag: 'mit', cards: { [DECLINED_AT_STRIPE]: CARD } });
    // The Adyen account selected networkTxReference among its additional data.
    world.adyen.networkTxReference = true;
  });
  after(async () => {
    await world?.close();
  });

  const storedNetworkTransactionId = async (methodId: string): Promise<string | null> =>
    (await world.stack.query('SELECT network_transaction_id FROM payments.payment_methods WHERE id = $1', [methodId])).rows[0].network_transaction_id;

  /** Our PaymentIntent create requests to Stripe for an attempt. */
  const sentToStripe = (attemptId: string) => world.stripe.requests.filter((r) =>
    r.method === 'POST' && r.path === '/v1/payment_intents' && (r.params.metadata as Record<string, string> | undefined)?.attempt_id === attemptId);

  test('a customer-present payment at Stripe keeps the charge\'s network transaction id on the method, out of the method\'s JSON', async () => {
    const m = await world.merchant();
    const methodId = await world.storeVaulted(m.secret, 'pm_card_visa');
    assert.equal(await storedNetworkTransactionId(methodId), null);
    const res = await world.stack.pay(m.secret, { amount: 1200, payment_method: { type: 'card', id: methodId } });
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    const [attempt] = res.body.attempts;
    const intent = world.stripe.intents.get(attempt.provider_payment_id)!;
    const charge = world.stripe.charges.get(String(intent.latest_charge))!;
    const networkId = (charge.payment_method_details as any).card.network_transaction_id;
    assert.match(networkId, /^\d{15}$/);
    assert.equal(await storedNetworkTransactionId(methodId), networkId);
    assert.equal(sentToStripe(attempt.id)[0].params.off_session, undefined, 'a customer-present payment is not off-session');

    const method = await request(world.stack.baseUrl, 'GET', `/v1/payment-methods/${methodId}`, { key: m.secret });
    assert.equal(method.status, 200);
    assert.ok(!JSON.stringify(method.body).includes(networkId), 'the scheme id is not part of the public method');
  });

  test('a subscription charge soft-declined at Stripe (off_session) is taken by Adyen through forwarding with ContAuth and the stored networkTxReference', async () => {
    const m = await world.merchant();
    const methodId = await world.storeVaulted(m.secret, DECLINED_AT_STRIPE);

    // The customer pays in person: Stripe declines softly, Adyen takes it through the vault and answers its scheme id.
    const first = await world.stack.pay(m.secret, { amount: 990, payment_method: { type: 'card', id: methodId } });
    assert.equal(first.body.status, 'successful', JSON.stringify(first.body));
    const taken = first.body.attempts[1];
    assert.deepEqual([taken.provider_account_id, taken.path], [m.adyenAccount, 'forwarded']);
    const anchor = [...world.adyen.payments.values()].find((p) => p.reference === taken.id)!.networkTxReference;
    assert.ok(anchor);
    assert.equal(await storedNetworkTransactionId(methodId), anchor);
    const [personal] = sentUnder(world.adyen.requests, taken.id);
    assert.equal((personal.body as any).shopperInteraction, undefined, 'the customer-present payment is plain e-commerce');
    assert.equal((personal.body as any).paymentMethod.cvc, CARD.cvc);

    // A month later, the customer absent.
    const renewal = await world.stack.pay(m.secret, { amount: 990, payment_method: { type: 'card', id: methodId }, merchant_initiated: true });
    assert.equal(renewal.status, 201, JSON.stringify(renewal.body));
    assert.equal(renewal.body.status, 'successful', JSON.stringify(renewal.body));
    const [atStripe, atAdyen] = renewal.body.attempts;
    assert.deepEqual([atStripe.provider_account_id, atStripe.outcome], [m.stripeAccount, 'soft_decline']);
    assert.deepEqual([atAdyen.provider_account_id, atAdyen.outcome, atAdyen.path, atAdyen.vault], [m.adyenAccount, 'success', 'forwarded', 'stripe']);

    const [stripeRequest] = sentToStripe(atStripe.id);
    assert.equal(stripeRequest.params.off_session, 'true');
    assert.equal(stripeRequest.params.payment_method, DECLINED_AT_STRIPE);

    // Adyen's request names the charge merchant-initiated and the payment it rests on; the card
    // (without CVC: nobody is there to give one) only because the stand-in vault inserted it.
    const [sent] = sentUnder(world.adyen.requests, atAdyen.id);
    const body = sent.body as any;
    assert.equal(body.shopperInteraction, 'ContAuth');
    assert.equal(body.recurringProcessingModel, 'Subscription');
    assert.equal(body.additionalData.networkTxReference, anchor);
    assert.deepEqual(body.paymentMethod, { type: 'scheme', number: CARD.number, expiryMonth: CARD.expMonth, expiryYear: CARD.expYear, holderName: CARD.name });
    const [forward] = world.stripe.forwarded.filter((f) => JSON.stringify(f).includes(atAdyen.id));
    assert.ok(forward, 'the renewal went through the Forwarding API');

    // Later charges stay tied to the payment the customer made in person, not to this renewal.
    assert.equal(await storedNetworkTransactionId(methodId), anchor);
  });

  test('a merchant-initiated payment with a method that has no network transaction id is a 422 that writes nothing and calls no provider', async () => {
    const m = await world.merchant();
    const methodId = await world.storeVaulted(m.secret, DECLINED_AT_STRIPE);
    const calls = [world.stripe.requests.length, world.adyen.requests.length];
    await expectNoPaymentCreated(world.stack, async () => {
      const res = await world.stack.pay(m.secret, { payment_method: { type: 'card', id: methodId }, merchant_initiated: true });
      expectError(res, 422, 'invalid_request_error', 'validation_error', 'merchant_initiated');
      assert.match(res.body.error.message, /no network transaction id/);
      // A one-off token has no stored id at all.
      const oneOff = await world.stack.pay(m.secret, { payment_method: { type: 'card', token: 'pm_card_visa', provider_code: 'stripe' }, merchant_initiated: true });
      expectError(oneOff, 422, 'invalid_request_error', 'validation_error', 'merchant_initiated');
      assert.match(oneOff.body.error.message, /payment_method\.id/);
    });
    assert.deepEqual([world.stripe.requests.length, world.adyen.requests.length], calls);
    assert.equal(await storedNetworkTransactionId(methodId), null);
  });

  test('in the sandbox a demo provider answers a scheme id too, and a merchant-initiated payment fails over like any other', async () => {
    const { secret } = await world.stack.newMerchantKey('test');
    const pm = await request(world.stack.baseUrl, 'POST', '/v1/payment-methods', { key: secret, body: { type: 'card', provider_token: 'tok_sandbox_4242' } });
    assert.equal(pm.status, 201, JSON.stringify(pm.body));
    const refused = await world.stack.pay(secret, { payment_method: { type: 'card', id: pm.body.id }, merchant_initiated: true });
    expectError(refused, 422, 'invalid_request_error', 'validation_error', 'merchant_initiated');
    const present = await world.stack.pay(secret, { payment_method: { type: 'card', id: pm.body.id }, test_scenario: 'success' });
    assert.equal(present.body.status, 'successful', JSON.stringify(present.body));
    assert.match(String(await storedNetworkTransactionId(pm.body.id)), /^\d{15}$/);
    const renewal = await world.stack.pay(secret, { payment_method: { type: 'card', id: pm.body.id }, merchant_initiated: true, test_scenario: 'failover' });
    assert.equal(renewal.status, 201, JSON.stringify(renewal.body));
    assert.deepEqual(renewal.body.attempts.map((a: { outcome: string }) => a.outcome), ['soft_decline', 'success']);
  });

  test('merchant_initiated that is not a boolean is refused in the error envelope; false is a customer-present payment', async () => {
    const m = await world.merchant();
    await expectNoPaymentCreated(world.stack, async () => {
      for (const bad of ['true', 1, null, { yes: true }]) {
        const res = await world.stack.pay(m.secret, { payment_method: { type: 'card', id: 'pm_whatever' }, merchant_initiated: bad });
        assert.ok(res.status >= 400 && res.status < 500, `${JSON.stringify(bad)}: ${res.status}`);
        assert.equal(res.body.error.type, 'invalid_request_error', JSON.stringify(res.body));
        assert.equal(res.body.error.param, 'merchant_initiated', JSON.stringify(res.body));
        assert.match(res.body.request_id, /^req_/);
      }
    });
    const methodId = await world.storeVaulted(m.secret, 'pm_card_visa');
    const res = await world.stack.pay(m.secret, { payment_method: { type: 'card', id: methodId }, merchant_initiated: false });
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    assert.equal(sentToStripe(res.body.attempts[0].id)[0].params.off_session, undefined);
  });
});
