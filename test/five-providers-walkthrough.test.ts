// Five live providers in one project, tried as a merchant with live accounts at all five would, in
// ONE project, following docs/connectors.md: each account connected through the management API and
// pointed at its stand-in (the official SDKs behind the shipped connectors), then a stored card
// soft-declined at Stripe failing over to Checkout.com, a wallet payment sent to PayPal by a routing
// rule (Stripe and Adyen take `wallet` too and are cheaper) through its approval redirect and
// captured, an iDEAL payment at Mollie completed by webhook, a refund of each reaching the provider
// that took it, and one forged and one replayed notification per provider changing neither the
// payment nor the ledger.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { signedNotification, startAdyenStandIn, type AdyenStandIn } from './helpers/adyen-stand-in.js';
import { liveKey as checkoutLiveKey, signedEvent as checkoutEvent, startCheckoutStandIn, type CheckoutStandIn } from './helpers/checkout-stand-in.js';
import { eventually } from './helpers/eventually.js';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { startMollieStandIn, type MollieStandIn } from './helpers/mollie-stand-in.js';
import { signedEvent as paypalEvent, startPayPalStandIn, type PayPalStandIn } from './helpers/paypal-stand-in.js';
import { deliverNotification, notificationRows, type NotificationDelivery } from './helpers/provider-notifications.js';
import { request } from './helpers/stack.js';
import { signed as stripeSigned, stripeEvent } from './helpers/stripe-events.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';

const STRIPE_KEY = `sk_live_standin_${randomBytes(8).toString('hex')}`;
const STRIPE_WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('base64url')}`;
const ADYEN_KEY = `AQE_live_standin_${randomBytes(8).toString('hex')}`;
const ADYEN_HMAC = randomBytes(32).toString('hex').toUpperCase();
const MERCHANT_ACCOUNT = 'AcmeECOM';
const CKO_KEY = checkoutLiveKey();
const CKO_SIGNATURE_KEY = randomBytes(32).toString('hex');
const PAYPAL_CLIENT = `ALive${randomBytes(12).toString('hex')}`;
const PAYPAL_SECRET = `ELive${randomBytes(12).toString('hex')}`;
const PAYPAL_WEBHOOK = `WH${randomBytes(8).toString('hex').toUpperCase()}`;
const MOLLIE_KEY = `live_${randomBytes(15).toString('hex')}`;
const RETURN_URL = 'https://shop.example/orders/done';

type Provider = 'stripe' | 'adyen' | 'checkout' | 'paypal' | 'mollie';

describe('five providers in one live project, as docs/connectors.md walks it', () => {
  let stack: LicensedProviderStack;
  let stripe: StripeStandIn;
  let adyen: AdyenStandIn;
  let cko: CheckoutStandIn;
  let pp: PayPalStandIn;
  let mollie: MollieStandIn;
  let key: string;
  let projectId: string;
  const account = {} as Record<Provider, string>;
  // The payment each provider took, for the notification steps.
  const taken = {} as Record<Provider, any>;
  const refunds: string[] = [];

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [STRIPE_KEY] });
    adyen = await startAdyenStandIn({ apiKeys: [ADYEN_KEY], merchantAccounts: [MERCHANT_ACCOUNT] });
    cko = await startCheckoutStandIn({ secretKeys: [CKO_KEY] });
    pp = await startPayPalStandIn({ clients: { [PAYPAL_CLIENT]: PAYPAL_SECRET }, webhookIds: { [PAYPAL_CLIENT]: PAYPAL_WEBHOOK } });
    mollie = await startMollieStandIn({ apiKeys: [MOLLIE_KEY] });
    stack = await startLicensedProviderStack({ env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') } });
  });
  after(async () => {
    await stack?.close();
    await Promise.all([stripe?.close(), adyen?.close(), cko?.close(), pp?.close(), mollie?.close()]);
  });

  const get = (path: string) => request(stack.baseUrl, 'GET', path, { key });
  const post = (path: string, body: Record<string, unknown>, idempotencyKey: string) =>
    request(stack.baseUrl, 'POST', path, { key, body, headers: { 'Idempotency-Key': idempotencyKey } });
  const statusOf = async (paymentId: string) => (await get(`/v1/payments/${paymentId}`)).body.status as string;
  /** The ledger's movements for a payment or refund. */
  const movementsOf = async (entityId: string) =>
    ((await get('/v1/transactions?limit=100')).body.data as any[]).filter((t) => t.entity_id === entityId).map((t) => [t.type, t.amount, t.status]);
  const deliver = (provider: Provider, d: NotificationDelivery) => deliverNotification(stack.baseUrl, provider, account[provider], d);

  /**
   * The provider's genuine notification delivered and the payment settled by it; then the same
   * delivery again (a provider's retry, or a replay of a captured one) and a forgery: neither adds
   * a notification, moves the payment or touches the ledger.
   */
  async function forgedAndReplayedChangeNothing(provider: Provider, paymentId: string, genuine: NotificationDelivery, forged: NotificationDelivery) {
    const first = await deliver(provider, genuine);
    assert.equal(first.status, 200, `${provider}: ${await first.text()}`);
    const status = await statusOf(paymentId);
    const rows = await notificationRows(stack, account[provider]);
    const ledger = await eventually(`${provider}'s payment in the ledger`, async () => {
      const m = await movementsOf(paymentId);
      return m.length > 0 ? m : undefined;
    });
    const replayed = await deliver(provider, genuine);
    assert.equal(replayed.status, 200, `${provider} replay: ${await replayed.text()}`);
    const refused = await deliver(provider, forged);
    const refusal = await refused.text();
    assert.equal(refused.status, 400, `${provider} forgery: ${refusal}`);
    assert.equal(JSON.parse(refusal).error.code, 'invalid_signature', refusal);
    assert.equal(await statusOf(paymentId), status, `${provider}: the payment did not move`);
    assert.deepEqual(await notificationRows(stack, account[provider]), rows, `${provider}: nothing more recorded`);
    assert.deepEqual(await movementsOf(paymentId), ledger, `${provider}: the ledger did not move`);
  }

  test('1. a verified merchant connects all five live accounts, each pointed at its stand-in, and each answers svc provider test', async () => {
    const m = await stack.newMerchantKey('live');
    key = m.secret;
    projectId = m.projectId;
    const connect = (provider: Provider, name: string, feeBps: number, feeFixed: number, credentials: Record<string, string>) =>
      stack.connectLive(m.projectId, { provider, name, fee_bps: feeBps, fee_fixed: feeFixed, credentials });
    // Prices as the docs' examples: Stripe the cheapest, then Adyen, Checkout.com, PayPal.
    account.stripe = await connect('stripe', 'Stripe EU', 140, 25, { secret_key: STRIPE_KEY, webhook_secret: STRIPE_WEBHOOK_SECRET, api_base_url: stripe.baseUrl });
    account.adyen = await connect('adyen', 'Adyen EU', 150, 25, {
      api_key: ADYEN_KEY, merchant_account: MERCHANT_ACCOUNT, hmac_key: ADYEN_HMAC, live_url_prefix: '1797a841fbb37ca7-AcmeECOM', api_base_url: adyen.baseUrl,
    });
    account.checkout = await connect('checkout', 'Checkout.com EU', 160, 25, {
      secret_key: CKO_KEY, processing_channel_id: 'pc_standinlive00000000000000', webhook_signature_key: CKO_SIGNATURE_KEY, api_base_url: cko.baseUrl,
    });
    account.paypal = await connect('paypal', 'PayPal', 290, 35, { client_id: PAYPAL_CLIENT, client_secret: PAYPAL_SECRET, webhook_id: PAYPAL_WEBHOOK, api_base_url: pp.baseUrl });
    account.mollie = await connect('mollie', 'Mollie NL', 30, 29, { api_key: MOLLIE_KEY, webhook_base_url: stack.baseUrl, api_base_url: mollie.baseUrl });
    for (const [provider, id] of Object.entries(account)) {
      const res = await stack.manage('POST', `/provider-accounts/${id}/test`);
      assert.equal(res.status, 200, `${provider}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.ok, true, `${provider}: ${JSON.stringify(res.body)}`);
    }
    const listed = await stack.manage('GET', `/projects/${m.projectId}/provider-accounts?mode=live`);
    assert.deepEqual((listed.body.data as any[]).map((a) => a.provider.code).sort(), ['adyen', 'checkout', 'mollie', 'paypal', 'stripe']);
  });

  test('2. a stored card soft-declined at Stripe fails over to Checkout.com; its refund reaches Checkout.com', async () => {
    const res = await stack.payStored(key, [{ token: 'tok_chargeDeclined', provider_code: 'stripe' }, { token: 'tok_standin_card', provider_code: 'checkout' }]);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    assert.deepEqual(
      res.body.attempts.map((a: any) => [a.provider_account_id, a.outcome]),
      [[account.stripe, 'soft_decline'], [account.checkout, 'success']],
    );
    // Adyen holds no token of this card: never tried, and said so.
    assert.deepEqual(res.body.route.skipped.map((s: any) => s.provider_code), ['adyen']);
    taken.checkout = res.body;

    const refund = await post(`/v1/payments/${res.body.id}/refund`, { amount: 1000 }, 'card-refund-1');
    assert.equal(refund.body.status, 'successful', JSON.stringify(refund.body));
    refunds.push(refund.body.id);
    const sent = cko.requests.filter((r) => r.headers['cko-idempotency-key'] === refund.body.id);
    assert.deepEqual(sent.map((r) => r.path), [`/payments/${res.body.attempts[1].provider_payment_id}/refunds`]);
    assert.equal(cko.payments.get(res.body.attempts[1].provider_payment_id)!.refunded, 1000);
    assert.equal(await statusOf(res.body.id), 'partially_refunded');
  });

  test('3. a wallet payment: routed to PayPal by a routing rule, approved on PayPal\'s page, captured on its webhook; its refund reaches PayPal', async () => {
    // Stripe and Adyen take `wallet` too (Apple Pay and Google Pay tokens) and are cheaper. One
    // payment names its provider: without a token, provider_code alone binds it to PayPal.
    const named = await post('/v1/payments', {
      amount: 1500, currency: 'EUR', payment_method: { type: 'wallet', provider_code: 'paypal' }, return_url: RETURN_URL,
    }, 'wallet-named-1');
    assert.equal(named.body.status, 'processing', JSON.stringify(named.body));
    assert.deepEqual(named.body.attempts.map((a: any) => a.provider_account_id), [account.paypal], 'Stripe and Adyen are not asked first');
    assert.deepEqual(named.body.route.skipped.map((s: any) => s.provider_code).sort(), ['adyen', 'stripe']);
    // Or the project's rule sends every wallet payment to PayPal.
    const rule = await stack.manage('POST', `/projects/${projectId}/routing-rules`, {
      mode: 'live', name: 'wallets-to-paypal', priority: 10, payment_method_types: ['wallet'], providers: ['paypal'],
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));

    const res = await post('/v1/payments', { amount: 2500, currency: 'EUR', payment_method: { type: 'wallet' }, return_url: RETURN_URL }, 'wallet-1');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'processing', JSON.stringify(res.body));
    assert.equal(res.body.route.rule, 'wallets-to-paypal');
    const [attempt] = res.body.attempts;
    assert.equal(attempt.provider_account_id, account.paypal);
    const orderId = attempt.provider_payment_id as string;
    assert.equal(res.body.next_action.url, `${pp.baseUrl}/checkoutnow?token=${orderId}`);

    const order = pp.approve(orderId);
    const approved = paypalEvent('CHECKOUT.ORDER.APPROVED', { ...order }, PAYPAL_WEBHOOK);
    await forgedAndReplayedChangeNothing('paypal', res.body.id, approved, paypalEvent('CHECKOUT.ORDER.APPROVED', { ...order }, 'WH-SOMEONE-ELSE'));
    assert.equal(await statusOf(res.body.id), 'successful');
    assert.equal(pp.orders.get(orderId)!.purchase_units[0].payments!.captures!.length, 1, 'captured once');
    taken.paypal = res.body;

    const refund = await post(`/v1/payments/${res.body.id}/refund`, { amount: 1000 }, 'wallet-refund-1');
    assert.equal(refund.body.status, 'successful', JSON.stringify(refund.body));
    refunds.push(refund.body.id);
    const capture = pp.orders.get(orderId)!.purchase_units[0].payments!.captures![0];
    const sent = pp.requests.filter((r) => r.headers['paypal-request-id'] === refund.body.id);
    assert.deepEqual(sent.map((r) => r.path), [`/v2/payments/captures/${capture.id}/refund`]);
    assert.equal(await statusOf(res.body.id), 'partially_refunded');
  });

  test('4. an iDEAL payment at Mollie completes by Mollie\'s webhook; its refund reaches Mollie', async () => {
    const res = await post('/v1/payments', {
      amount: 2500, currency: 'EUR', payment_method: { type: 'local', token: 'ideal', provider_code: 'mollie' }, return_url: RETURN_URL,
    }, 'ideal-1');
    assert.equal(res.body.status, 'processing', JSON.stringify(res.body));
    const [attempt] = res.body.attempts;
    assert.equal(attempt.provider_account_id, account.mollie);
    const trId = attempt.provider_payment_id as string;
    const webhookUrl = mollie.payments.get(trId)!.webhookUrl!;
    assert.equal(webhookUrl, `${stack.baseUrl}/providers/mollie/webhooks/${account.mollie}`);

    // Mollie posts only an id, unsigned; what decides is the payment fetched back with the account's key.
    const form = (id: string): NotificationDelivery => ({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ id }).toString() });
    mollie.setStatus(trId, 'paid');
    await forgedAndReplayedChangeNothing('mollie', res.body.id, form(trId), form('not-a-payment'));
    // A made-up id of the right shape is answered 200 (as Mollie's reference asks) and changes nothing either.
    const rows = await notificationRows(stack, account.mollie);
    assert.equal((await deliver('mollie', form('tr_madeUp42'))).status, 200);
    assert.deepEqual(await notificationRows(stack, account.mollie), rows);
    assert.equal(await statusOf(res.body.id), 'successful');
    taken.mollie = res.body;

    const refund = await post(`/v1/payments/${res.body.id}/refund`, { amount: 1000 }, 'ideal-refund-1');
    assert.equal(refund.body.status, 'successful', JSON.stringify(refund.body));
    refunds.push(refund.body.id);
    const sent = mollie.requests.filter((r) => r.headers['idempotency-key'] === refund.body.id);
    assert.deepEqual(sent.map((r) => r.path), [`/v2/payments/${trId}/refunds`]);
    assert.equal(mollie.payments.get(trId)!.amountRefunded.value, '10.00');
  });

  test('5. Stripe and Adyen: a 3-D Secure payment at each completed by its signed notification; forged and replayed ones change nothing', async () => {
    const atStripe = await post('/v1/payments', {
      amount: 2000, currency: 'EUR', payment_method: { type: 'card', token: 'pm_card_authenticationRequired', provider_code: 'stripe' }, return_url: RETURN_URL,
    }, 'stripe-3ds-1');
    assert.equal(atStripe.body.status, 'processing', JSON.stringify(atStripe.body));
    const intent = atStripe.body.attempts[0].provider_payment_id as string;
    stripe.completeAuthentication(intent);
    const succeeded = stripeEvent('payment_intent.succeeded', stripe.intents.get(intent)!);
    await forgedAndReplayedChangeNothing('stripe', atStripe.body.id, stripeSigned(succeeded, STRIPE_WEBHOOK_SECRET), stripeSigned(succeeded, 'whsec_forged'));
    assert.equal(await statusOf(atStripe.body.id), 'successful');

    const atAdyen = await post('/v1/payments', {
      amount: 2000, currency: 'EUR', payment_method: { type: 'card', token: 'standin_3ds', provider_code: 'adyen' }, return_url: RETURN_URL,
    }, 'adyen-3ds-1');
    assert.equal(atAdyen.body.status, 'processing', JSON.stringify(atAdyen.body));
    const attempt = atAdyen.body.attempts[0];
    assert.equal(attempt.provider_account_id, account.adyen);
    const item = { eventCode: 'AUTHORISATION', pspReference: attempt.provider_payment_id, merchantAccountCode: MERCHANT_ACCOUNT, merchantReference: attempt.id, amount: { value: 2000, currency: 'EUR' } };
    const json = (body: string): NotificationDelivery => ({ headers: { 'content-type': 'application/json' }, body });
    await forgedAndReplayedChangeNothing('adyen', atAdyen.body.id,
      json(signedNotification(ADYEN_HMAC, [{ ...item, success: true }], true)),
      json(signedNotification(randomBytes(32).toString('hex'), [{ ...item, success: false, reason: 'FRAUD' }], true)));
    assert.equal(await statusOf(atAdyen.body.id), 'successful');
  });

  test('6. Checkout.com: its signed notification for the failed-over payment, replayed and forged, changes nothing', async () => {
    const p = taken.checkout;
    const second = p.attempts[1];
    const data = { id: second.provider_payment_id, reference: second.id, amount: 2500, currency: 'EUR', response_code: '10000' };
    await forgedAndReplayedChangeNothing('checkout', p.id,
      checkoutEvent('payment_captured', data, CKO_SIGNATURE_KEY),
      checkoutEvent('payment_declined', { ...data, response_code: '20051' }, randomBytes(32).toString('hex')));
    assert.equal(await statusOf(p.id), 'partially_refunded');
  });

  test('7. the ledger: each payment and each refund moved once', async () => {
    assert.equal(refunds.length, 3);
    for (const id of refunds) {
      const moved = await eventually(`refund ${id} in the ledger`, async () => {
        const m = await movementsOf(id);
        return m.length > 0 ? m : undefined;
      });
      assert.equal(moved.length, 1, `${id}: ${JSON.stringify(moved)}`);
    }
    for (const p of [taken.checkout, taken.paypal, taken.mollie]) assert.equal((await movementsOf(p.id)).length, 1, p.id);
  });
});
