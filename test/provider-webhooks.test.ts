// Webhooks from providers through the REST gateway: a live project's Stripe account
// (the official SDK pointed at the local stand-in), connected with the management API, sends
// signed events to POST /providers/stripe/webhooks/{account}. A 3-D Secure payment is completed by
// the event; a replay and an out-of-order event change nothing; a forged or stale signature is
// refused; an unknown account is 404; a refund Stripe accepted and later failed gives its amount
// back to the payment and is reversed in the ledger.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eventually } from './helpers/eventually.js';
import { deliver, signed, stripeEvent } from './helpers/stripe-events.js';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { request } from './helpers/stack.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';

const KEY = `sk_live_standin_${randomBytes(8).toString('hex')}`;
const WEBHOOK_SECRET = `whsec_${randomBytes(24).toString('base64url')}`;

describe('webhooks from providers: Stripe', () => {
  let stack: LicensedProviderStack;
  let stripe: StripeStandIn;

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [KEY] });
    stack = await startLicensedProviderStack({
      env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') },
      paymentDefaults: { payment_method: { type: 'card', token: 'pm_card_visa' } },
    });
  });
  after(async () => {
    await stack?.close();
    await stripe?.close();
  });

  /** A live merchant whose project has a Stripe account connected as the docs say. */
  async function merchantAtStripe() {
    const m = await stack.newMerchantKey('live');
    const connected = await stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      provider: 'stripe', mode: 'live', name: 'Stripe EU',
      credentials: { secret_key: KEY, webhook_secret: WEBHOOK_SECRET, api_base_url: stripe.baseUrl },
    });
    assert.equal(connected.status, 201, JSON.stringify(connected.body));
    return { ...m, accountId: connected.body.id as string };
  }
  const get = (key: string, path: string) => request(stack.baseUrl, 'GET', path, { key });
  const timeline = async (key: string, id: string) => (await get(key, `/v1/payments/${id}/timeline`)).body.data as any[];
  /** The public events payments emitted about an object (payment or refund), oldest first. */
  async function eventsOf(objectId: string): Promise<string[]> {
    const { rows } = await stack.query(
      `SELECT type FROM payments.outbox WHERE payload->'data'->'object'->>'id' = $1 AND type NOT LIKE 'internal.%' ORDER BY seq`,
      [objectId],
    );
    return rows.map((r) => r.type);
  }
  const notificationRows = async (accountId: string) =>
    (await stack.query('SELECT event_id, subject, effect FROM payments.provider_notifications WHERE provider_account_id = $1', [accountId])).rows;

  /** A live 3-D Secure payment waiting on Stripe's page, and its PaymentIntent. */
  async function awaiting3ds(m: { secret: string }) {
    const res = await stack.pay(m.secret, {
      payment_method: { type: 'card', token: 'pm_card_authenticationRequired' }, return_url: 'https://shop.example/done',
    });
    assert.equal(res.body.status, 'processing', JSON.stringify(res.body));
    return { payment: res.body, intentId: res.body.attempts[0].provider_payment_id as string };
  }

  test('a 3-D Secure payment is completed by Stripe\'s signed payment_intent.succeeded; a replay and a late payment_failed change nothing', async () => {
    const m = await merchantAtStripe();
    const { payment, intentId } = await awaiting3ds(m);
    stripe.completeAuthentication(intentId);
    const succeeded = signed(stripeEvent('payment_intent.succeeded', stripe.intents.get(intentId)!), WEBHOOK_SECRET);

    const first = await deliver(stack.baseUrl, m.accountId, succeeded);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body, { received: true, notifications: 1, new_notifications: 1 });
    const done = await get(m.secret, `/v1/payments/${payment.id}`);
    assert.equal(done.body.status, 'successful');
    assert.equal(done.body.next_action, null);
    assert.equal(done.body.attempts[0].outcome, 'success');
    assert.deepEqual(await eventsOf(payment.id), ['payment.created', 'payment.processing', 'payment.successful']);
    const entries = await timeline(m.secret, payment.id);
    const told = entries.find((e) => e.type === 'provider.notification');
    assert.equal(told.data.event_id, succeeded.eventId);
    assert.equal(told.data.effect, 'applied');
    assert.match(told.description, /Stripe sent notification evt_.* while the payment was processing: it moved the payment on/);
    const completed = entries.find((e) => e.type === 'customer_action.completed');
    assert.deepEqual([completed.data.outcome, completed.data.by], ['approved', 'provider']);
    assert.match(completed.description, /provider's notification reports that the customer approved/);
    assert.ok(entries.some((e) => e.type === 'payment.successful'));

    // Stripe retries a delivery it got no 2xx for, same event id and body: answered again, no effect.
    const replay = await deliver(stack.baseUrl, m.accountId, succeeded);
    assert.equal(replay.status, 200);
    assert.deepEqual(replay.body, { received: true, notifications: 1, new_notifications: 0 });
    assert.deepEqual(await eventsOf(payment.id), ['payment.created', 'payment.processing', 'payment.successful']);
    assert.equal((await timeline(m.secret, payment.id)).length, entries.length);

    // An older failure delivered after the success: recorded, narrated, ignored.
    const failedIntent = {
      ...stripe.intents.get(intentId)!, status: 'requires_payment_method',
      last_payment_error: { type: 'card_error', code: 'payment_intent_authentication_failure', message: 'Authentication failed.' },
    };
    const late = await deliver(stack.baseUrl, m.accountId, signed(stripeEvent('payment_intent.payment_failed', failedIntent), WEBHOOK_SECRET));
    assert.equal(late.status, 200, JSON.stringify(late.body));
    const after = await get(m.secret, `/v1/payments/${payment.id}`);
    assert.equal(after.body.status, 'successful');
    assert.equal(after.body.failure, null);
    assert.deepEqual(await eventsOf(payment.id), ['payment.created', 'payment.processing', 'payment.successful']);
    const ignored = (await timeline(m.secret, payment.id)).filter((e) => e.type === 'provider.notification').at(-1);
    assert.deepEqual([ignored.data.outcome, ignored.data.effect, ignored.data.status], ['hard_decline', 'ignored', 'successful']);
    assert.match(ignored.description, /never moves a payment backwards/);
    assert.deepEqual((await notificationRows(m.accountId)).map((r) => r.effect).sort(), ['applied', 'ignored']);
  });

  test('a forged, tampered or stale signature is refused with 400 and changes nothing', async () => {
    const m = await merchantAtStripe();
    const { payment, intentId } = await awaiting3ds(m);
    stripe.completeAuthentication(intentId);
    const event = stripeEvent('payment_intent.succeeded', stripe.intents.get(intentId)!);
    const before = await timeline(m.secret, payment.id);

    const forged = await deliver(stack.baseUrl, m.accountId, signed(event, `whsec_${randomBytes(24).toString('base64url')}`));
    const tampered = signed(event, WEBHOOK_SECRET);
    tampered.body = tampered.body.replace('"amount": 2500', '"amount": 1');
    const stale = signed(event, WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 301);
    const unsigned = { ...signed(event, WEBHOOK_SECRET), headers: { 'content-type': 'application/json' } };
    for (const [name, res] of [
      ['forged', forged], ['tampered', await deliver(stack.baseUrl, m.accountId, tampered)],
      ['stale', await deliver(stack.baseUrl, m.accountId, stale)], ['unsigned', await deliver(stack.baseUrl, m.accountId, unsigned)],
    ] as const) {
      assert.equal(res.status, 400, `${name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'invalid_signature', name);
      assert.doesNotMatch(JSON.stringify(res.body), new RegExp(WEBHOOK_SECRET), name);
    }
    assert.equal((await get(m.secret, `/v1/payments/${payment.id}`)).body.status, 'processing');
    assert.deepEqual(await timeline(m.secret, payment.id), before);
    assert.deepEqual(await notificationRows(m.accountId), []);
  });

  test('an unknown account, or an account of another provider, is 404', async () => {
    const m = await merchantAtStripe();
    const event = signed(stripeEvent('payment_intent.succeeded', { id: 'pi_x', object: 'payment_intent', status: 'succeeded', metadata: {} }), WEBHOOK_SECRET);
    const unknown = await deliver(stack.baseUrl, 'pac_doesnotexist', event);
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.equal(unknown.body.error.code, 'resource_not_found');
    const otherProvider = await deliver(stack.baseUrl, m.accountId, event, 'adyen');
    assert.equal(otherProvider.status, 404, JSON.stringify(otherProvider.body));
    assert.deepEqual(await notificationRows(m.accountId), []);
  });

  /** The live ledger's transactions of the merchant once `count` are recorded, and its balance in EUR. */
  async function books(key: string, count: number) {
    const transactions = await eventually(`${count} ledger transactions`, async () => {
      const res = await get(key, '/v1/transactions?limit=100');
      return res.body.data?.length === count ? res.body.data as any[] : undefined;
    });
    const balances = (await get(key, '/v1/balances')).body.data as any[];
    return { transactions, balance: balances.find((b) => b.currency === 'EUR') };
  }

  test('a refund Stripe accepted and later failed gives its amount back: the payment, a new refund and the ledger add up; a replay changes nothing', async () => {
    const m = await merchantAtStripe();
    const paid = await stack.pay(m.secret);
    assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
    const refund = await request(stack.baseUrl, 'POST', `/v1/payments/${paid.body.id}/refund`, { key: m.secret, body: { amount: 1000 } });
    assert.equal(refund.body.status, 'successful', JSON.stringify(refund.body));
    const refunded = (await get(m.secret, `/v1/payments/${paid.body.id}`)).body;
    assert.deepEqual([refunded.status, refunded.refunded_amount], ['partially_refunded', 1000]);

    const failedRefund = stripe.failRefund(refund.body.provider_refund_id);
    const failure = signed(stripeEvent('charge.refund.updated', failedRefund), WEBHOOK_SECRET);
    const res = await deliver(stack.baseUrl, m.accountId, failure);
    assert.equal(res.status, 200, JSON.stringify(res.body));

    const now = await get(m.secret, `/v1/refunds/${refund.body.id}`);
    assert.equal(now.body.status, 'failed');
    assert.equal(now.body.failure.code, 'refund_failed');
    // The customer got nothing back: the payment stands as before the refund.
    const payment = (await get(m.secret, `/v1/payments/${paid.body.id}`)).body;
    assert.deepEqual(
      [payment.status, payment.amount, payment.captured_amount, payment.refunded_amount],
      ['successful', 2500, 2500, 0],
    );
    assert.deepEqual(await eventsOf(refund.body.id), ['refund.successful', 'refund.failed']);
    // No payment event: payment.refunded means a refund settled, payment.successful a charge.
    assert.deepEqual(await eventsOf(paid.body.id), ['payment.created', 'payment.successful', 'payment.refunded']);
    const { rows: [emitted] } = await stack.query(
      `SELECT payload FROM payments.outbox WHERE type = 'refund.failed' AND payload->'data'->'object'->>'id' = $1`, [refund.body.id],
    );
    assert.deepEqual([emitted.payload.data.object.status, emitted.payload.data.object.amount], ['failed', 1000]);
    const entries = await timeline(m.secret, paid.body.id);
    const failed = entries.find((e) => e.type === 'refund.failed');
    assert.match(failed.description, /which it had accepted, failed \(expired_or_canceled_card\): the customer did not get 10.00 EUR back/);
    const reversed = entries.find((e) => e.type === 'payment.refund_reversed');
    assert.deepEqual([reversed.data.refunded_amount, reversed.data.from_status, reversed.data.status], [0, 'partially_refunded', 'successful']);
    assert.match(reversed.description, /10.00 EUR is refundable again: 0.00 EUR refunded in all, and the payment is successful/);
    const told = entries.at(-1);
    assert.deepEqual([told.type, told.data.subject, told.data.effect, told.data.refund_id], ['provider.notification', 'refund', 'applied', refund.body.id]);

    // The same delivery again, and Stripe's refund.failed about the same refund: nothing is given back twice.
    assert.deepEqual((await deliver(stack.baseUrl, m.accountId, failure)).body, { received: true, notifications: 1, new_notifications: 0 });
    const twice = await deliver(stack.baseUrl, m.accountId, signed(stripeEvent('refund.failed', failedRefund), WEBHOOK_SECRET));
    assert.deepEqual(twice.body, { received: true, notifications: 1, new_notifications: 1 });
    assert.equal((await get(m.secret, `/v1/payments/${paid.body.id}`)).body.refunded_amount, 0);
    assert.deepEqual(await eventsOf(refund.body.id), ['refund.successful', 'refund.failed']);
    assert.deepEqual((await notificationRows(m.accountId)).map((r) => r.effect).sort(), ['applied', 'confirmed']);

    // The whole captured amount is refundable again, once: refunded_amount never exceeds captured_amount.
    const tooMuch = await request(stack.baseUrl, 'POST', `/v1/payments/${paid.body.id}/refund`, { key: m.secret, body: { amount: 2501 } });
    assert.equal(tooMuch.status, 422, JSON.stringify(tooMuch.body));
    const rest = await request(stack.baseUrl, 'POST', `/v1/payments/${paid.body.id}/refund`, { key: m.secret, body: {} });
    assert.deepEqual([rest.status, rest.body.status, rest.body.amount], [201, 'successful', 2500]);
    const full = (await get(m.secret, `/v1/payments/${paid.body.id}`)).body;
    assert.deepEqual([full.status, full.refunded_amount, full.captured_amount], ['refunded', 2500, 2500]);
    const more = await request(stack.baseUrl, 'POST', `/v1/payments/${paid.body.id}/refund`, { key: m.secret, body: { amount: 1 } });
    assert.equal(more.status, 409, JSON.stringify(more.body));

    // The ledger: the failed refund's movement is reversed by an adjustment, and everything adds up.
    const { transactions, balance } = await books(m.secret, 4);
    const of = (type: string, entityId: string) => transactions.find((t) => t.type === type && t.entity_id === entityId);
    assert.deepEqual([of('refund', refund.body.id).status, of('refund', refund.body.id).net_amount], ['successful', -1000]);
    const adjustment = of('adjustment', refund.body.id);
    assert.deepEqual(
      [adjustment.status, adjustment.entity_type, adjustment.payment_id, adjustment.amount, adjustment.net_amount, adjustment.failure_code],
      ['successful', 'refund', paid.body.id, 1000, 1000, 'refund_failed'],
    );
    const fee = of('payment', paid.body.id).fee_amount;
    assert.equal(of('refund', rest.body.id).net_amount, -2500);
    const nets = transactions.reduce((sum, t) => sum + t.net_amount, 0);
    assert.equal(nets, balance.processed_net, 'sum of nets = processed_net');
    // Captured 2500, refunded 2500 once (the failed 1000 and its reversal cancel out): only the fee remains.
    assert.deepEqual([balance.processed_gross, balance.fees], [0, fee]);
    assert.equal(balance.processed_net, balance.processed_gross - fee);
  });
});
