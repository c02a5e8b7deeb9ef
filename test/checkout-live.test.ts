// Live payments at a Checkout.com account through the REST gateway: a project connects a Stripe
// account (Stripe stand-in) and a Checkout.com account (Checkout.com stand-in) with the management
// API, each pointed at its stand-in with api_base_url, and the shipped connectors (the PROVIDERS
// list) read the sealed credentials. A soft decline at Stripe is tried again at Checkout.com and
// succeeds, and its refund reaches Checkout.com; a 3-D Secure payment there is completed by its
// signed webhook, which replayed or forged changes nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { liveKey, signedEvent, startCheckoutStandIn, type CheckoutStandIn } from './helpers/checkout-stand-in.js';
import type { LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { startLiveStandIns, type LiveStandIns } from './helpers/live-stand-ins.js';
import { deliverNotification, notificationRows, type NotificationDelivery } from './helpers/provider-notifications.js';
import { request } from './helpers/stack.js';

const STRIPE_KEY = `sk_live_standin_${Date.now()}`;
const CKO_KEY = liveKey();
const CHANNEL = 'pc_standinlive00000000000000';
const SIGNATURE_KEY = randomBytes(32).toString('hex');

describe('live payments at a Checkout.com account (stand-ins)', () => {
  let live: LiveStandIns<{ cko: CheckoutStandIn }>;
  let stack: LicensedProviderStack;
  let cko: CheckoutStandIn;

  before(async () => {
    live = await startLiveStandIns(STRIPE_KEY, { cko: () => startCheckoutStandIn({ secretKeys: [CKO_KEY] }) });
    ({ stack, cko } = live);
  });
  after(() => live?.close());

  /** A verified merchant's live key, with Stripe (cheaper, so tried first) and Checkout.com connected live. */
  async function merchantAtBoth() {
    const m = await stack.newMerchantKey('live');
    const connect = (body: Record<string, unknown>) => stack.connectLive(m.projectId, body);
    const stripeAccount = await connect(live.stripeEu());
    const checkoutAccount = await connect({
      provider: 'checkout', name: 'Checkout.com EU', fee_bps: 150, fee_fixed: 10,
      credentials: { secret_key: CKO_KEY, processing_channel_id: CHANNEL, webhook_signature_key: SIGNATURE_KEY, api_base_url: cko.baseUrl },
    });
    return { ...m, stripeAccount, checkoutAccount };
  }
  /** A one-off Checkout.com token: its shape names no issuer, so live mode needs provider_code. */
  const payAtCheckout = (key: string, token: string, body: Record<string, unknown> = {}) =>
    stack.pay(key, { payment_method: { type: 'card', token, provider_code: 'checkout' }, ...body });
  /** A stored card holding Stripe's token and Checkout.com's token for it, paid with the live key. */
  const payStored = (key: string, stripeToken: string, checkoutToken: string) =>
    stack.payStored(key, [{ token: stripeToken, provider_code: 'stripe' }, { token: checkoutToken, provider_code: 'checkout' }]);
  const get = (key: string, path: string) => request(stack.baseUrl, 'GET', path, { key });
  const sentUnder = (key: string) => cko.requests.filter((r) => r.headers['cko-idempotency-key'] === key);
  const deliver = (accountId: string, d: NotificationDelivery) => deliverNotification(stack.baseUrl, 'checkout', accountId, d);
  const notifications = (accountId: string) => notificationRows(stack, accountId);

  test('connect checks the fields: a sandbox key on a live account and a missing processing channel are 422s', async () => {
    const m = await stack.newMerchantKey('live');
    const connect = (credentials: Record<string, string>) => stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      mode: 'live', provider: 'checkout', name: 'Checkout.com', credentials,
    });
    const sandbox = await connect({ secret_key: 'sk_sbox_x', processing_channel_id: CHANNEL, webhook_signature_key: SIGNATURE_KEY, api_base_url: cko.baseUrl });
    assert.equal(sandbox.status, 422, JSON.stringify(sandbox.body));
    assert.equal(sandbox.body.error.param, 'secret_key');
    const noChannel = await connect({ secret_key: CKO_KEY, webhook_signature_key: SIGNATURE_KEY, api_base_url: cko.baseUrl });
    assert.equal(noChannel.status, 422, JSON.stringify(noChannel.body));
    assert.match(JSON.stringify(noChannel.body), /processing_channel_id/);
  });

  test('svc provider test reaches Checkout.com through its connector', async () => {
    const m = await merchantAtBoth();
    const res = await stack.manage('POST', `/provider-accounts/${m.checkoutAccount}/test`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.ok, true, JSON.stringify(res.body));
    assert.equal(cko.requests.at(-1)!.query.get('reference'), 'svc-credential-check');
  });

  test('a soft decline at Stripe fails over to Checkout.com, which takes the payment; its refund reaches Checkout.com', async () => {
    const m = await merchantAtBoth();
    const res = await payStored(m.secret, 'tok_chargeDeclined', 'tok_standin_card');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    const [first, second] = res.body.attempts;
    assert.equal(res.body.attempts.length, 2);
    assert.equal(first.provider_account_id, m.stripeAccount);
    assert.equal(first.outcome, 'soft_decline');
    assert.equal(first.provider_code, 'generic_decline');
    assert.equal(second.provider_account_id, m.checkoutAccount);
    assert.equal(second.outcome, 'success');
    assert.match(second.provider_payment_id, /^pay_standin/);
    assert.equal(res.body.route.provider.code, 'checkout');
    const sent = sentUnder(second.id);
    assert.equal(sent.length, 1);
    assert.equal(sent[0].body.reference, second.id);
    assert.equal(sent[0].body.amount, 2500);
    assert.equal(sent[0].headers.authorization, `Bearer ${CKO_KEY}`);

    const refund = await request(stack.baseUrl, 'POST', `/v1/payments/${res.body.id}/refund`, { key: m.secret, body: { amount: 1000 } });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    assert.equal(refund.body.status, 'successful');
    assert.match(refund.body.provider_refund_id, /^act_standin/);
    const [refundSent] = sentUnder(refund.body.id);
    assert.equal(refundSent.path, `/payments/${second.provider_payment_id}/refunds`);
    assert.deepEqual(refundSent.body, { amount: 1000, reference: refund.body.id, metadata: { refund_id: refund.body.id } });
    assert.equal(cko.payments.get(second.provider_payment_id)!.refunded, 1000);
    assert.equal((await get(m.secret, `/v1/payments/${res.body.id}`)).body.status, 'partially_refunded');
  });

  test('a hard decline at Checkout.com (20051) ends the payment with its table row', async () => {
    const m = await merchantAtBoth();
    // Bound to Checkout.com, the token is never sent to Stripe; Checkout.com declines it for insufficient funds.
    const res = await payAtCheckout(m.secret, 'tok_standin_declined_20051');
    assert.equal(res.body.status, 'failed', JSON.stringify(res.body));
    assert.equal(res.body.attempts.length, 1);
    assert.equal(res.body.attempts[0].provider_code, '20051');
    assert.deepEqual(res.body.failure, { code: 'insufficient_funds', category: 'hard', message: 'The card has insufficient funds.', decline_reason: 'insufficient_funds' });
  });

  test('3-D Secure at Checkout.com is completed by its signed payment_approved webhook; a replay, a forgery and a late decline change nothing', async () => {
    const m = await merchantAtBoth();
    const res = await payAtCheckout(m.secret, 'tok_standin_3ds', { return_url: 'https://shop.example/done' });
    assert.equal(res.body.status, 'processing', JSON.stringify(res.body));
    const attempt = res.body.attempts[0];
    assert.equal(res.body.next_action.url, `${cko.baseUrl}/3ds/${attempt.provider_payment_id}`);

    // A forgery first: refused, nothing recorded, the payment still waits.
    const forged = await deliver(m.checkoutAccount, signedEvent('payment_declined', {
      id: attempt.provider_payment_id, reference: attempt.id, response_code: '20059',
    }, randomBytes(32).toString('hex')));
    assert.equal(forged.status, 400);
    assert.equal(((await forged.json()) as { error: { code: string } }).error.code, 'invalid_signature');
    assert.equal((await get(m.secret, `/v1/payments/${res.body.id}`)).body.status, 'processing');
    assert.deepEqual(await notifications(m.checkoutAccount), []);

    const p = cko.completeAuthentication(attempt.provider_payment_id);
    const approved = signedEvent('payment_approved', {
      id: p.id, reference: p.reference, amount: p.amount, currency: p.currency, response_code: '10000', metadata: p.metadata,
    }, SIGNATURE_KEY);
    const delivered = await deliver(m.checkoutAccount, approved);
    assert.equal(delivered.status, 200, await delivered.text());
    assert.equal((await get(m.secret, `/v1/payments/${res.body.id}`)).body.status, 'successful');
    const timeline = async () => (await get(m.secret, `/v1/payments/${res.body.id}/timeline`)).body.data as any[];
    const entries = await timeline();
    const notes = entries.filter((e) => e.type === 'provider.notification');
    assert.equal(notes.length, 1);
    assert.equal(notes[0].data.effect, 'applied');

    // Checkout.com's retry, or a replay of the captured delivery: the same event id, nothing changes.
    const again = await deliver(m.checkoutAccount, approved);
    assert.equal(again.status, 200);
    assert.equal((await timeline()).length, entries.length);
    // A forged decline after the success, even with a fresh event id, is refused and changes nothing.
    const late = await deliver(m.checkoutAccount, signedEvent('payment_declined', {
      id: p.id, reference: p.reference, response_code: '20051',
    }, 'not-the-key'));
    assert.equal(late.status, 400);
    assert.equal((await get(m.secret, `/v1/payments/${res.body.id}`)).body.status, 'successful');
    assert.deepEqual(await notifications(m.checkoutAccount), [[approved.eventId, 'applied']]);
    // A genuine decline arriving out of order, after the approval: recorded, ignored, never moving the payment back.
    const outOfOrder = signedEvent('payment_declined', { id: p.id, reference: p.reference, response_code: '20005' }, SIGNATURE_KEY);
    assert.equal((await deliver(m.checkoutAccount, outOfOrder)).status, 200);
    assert.equal((await get(m.secret, `/v1/payments/${res.body.id}`)).body.status, 'successful');
    assert.deepEqual((await notifications(m.checkoutAccount)).sort(),
      [[approved.eventId, 'applied'], [outOfOrder.eventId, 'ignored']].sort());
  });
});
