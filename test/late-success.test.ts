// A late success (faults, third round, item 4): Stripe takes the payment at the first account, its
// answer is lost and its status query says it never arrived (as a provider's lookup does while its
// index lags), so the payment fails over to a second account and succeeds there. Then the first
// account's notification reports the success. The official SDK, pointed at the Stripe stand-in,
// makes every call; only the lost answer and the missed status query of the first account are
// injected around the shipped connector. The late charge is refunded at the first account (released
// when only authorized) once, however often the notification comes; the merchant is told by
// payment.late_charge_returned and the timeline; the customer is charged once. The sandbox plays the
// same with test_scenario late_success.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createStripeConnector } from '../services/connectors/stripe/connector.js';
import type { Connector, CredentialSource } from '../services/payments/index.js';
import { newId } from '../services/platform/ids.js';
import { INTERNAL_EVENT_TYPES, internalEnvelope } from '../services/platform/internal-events.js';
import { publishAll } from './helpers/dispute-movements.js';
import { eventually } from './helpers/eventually.js';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { request } from './helpers/stack.js';
import { deliver, signed, stripeEvent } from './helpers/stripe-events.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';
import { STAND_IN_ORIGINS } from './helpers/stand-in-server.js';

const KEY = `sk_live_standin_${Date.now()}`;
const WEBHOOK_SECRET = 'whsec_live_late';

describe('a late success after failover is returned at the first provider: the customer is charged once', () => {
  let stack: LicensedProviderStack;
  let stripe: StripeStandIn;
  /** The account whose answers are lost and whose status query misses the payment. */
  let losing = '';

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [KEY] });
    const credentials: CredentialSource = {
      async get() {
        return { mode: 'live', values: { secret_key: KEY, webhook_secret: WEBHOOK_SECRET, api_base_url: stripe.baseUrl } };
      },
    };
    const real = createStripeConnector({ credentials, network: { allowlist: [STAND_IN_ORIGINS] } });
    const connector: Connector = {
      ...real,
      async authorize(req) {
        const answer = await real.authorize(req);
        if (req.account.id === losing) throw new Error('socket hang up: the answer was lost after Stripe took the payment');
        return answer;
      },
      getStatus: async (req) => (req.account.id === losing ? { found: false } : real.getStatus(req)),
    };
    stack = await startLicensedProviderStack({ connectors: { stripe: connector }, env: { RECONCILIATION_SWEEP_MS: '500', PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') } });
  });
  after(async () => {
    await stack?.close();
    await stripe?.close();
  });

  /** A live merchant with two Stripe accounts, the cheaper tried first, and the first losing its answers. */
  async function merchant() {
    const m = await stack.newMerchantKey('live');
    const credentials = { secret_key: KEY, webhook_secret: WEBHOOK_SECRET, api_base_url: stripe.baseUrl };
    const first = await stack.connectLive(m.projectId, { provider: 'stripe', name: 'Stripe EU', fee_bps: 100, fee_fixed: 10, credentials });
    const second = await stack.connectLive(m.projectId, { provider: 'stripe', name: 'Stripe US', fee_bps: 200, fee_fixed: 10, credentials });
    losing = first;
    return { ...m, first, second };
  }

  const intentOf = (attemptId: string) => [...stripe.intents.values()].find((pi) => (pi.metadata as any).attempt_id === attemptId)!;
  const refundedAt = (intentId: string) =>
    [...stripe.refunds.values()].filter((r) => r.payment_intent === intentId).reduce((t, r) => t + Number(r.amount), 0);
  /** The ledger's rows of a payment: its own movement and, beside it, the late pair (docs/ledger.md, "A late charge"). */
  const ledgerRows = async (paymentId: string) => (await stack.query(
    `SELECT type, movement_id, amount::int, fee_amount::int, provider_account_id FROM ledger.transactions
     WHERE payment_id = $1 AND status = 'successful' ORDER BY type, movement_id`, [paymentId],
  )).rows;
  /** Waits for the payment's movement and the late pair, in whatever order they are booked, then what the merchant's balance shows in EUR. */
  const lateBooked = async (key: string, paymentId: string, attemptId: string) => {
    const rows = await eventually('the payment, the late charge and its return booked', async () => {
      const r = await ledgerRows(paymentId);
      const has = (movementId: string) => r.some((t) => t.movement_id === movementId);
      return has('') && has(`${attemptId}:late_charge`) && has(`${attemptId}:late_return`) ? r : undefined;
    });
    const eur = ((await request(stack.baseUrl, 'GET', '/v1/balances', { key })).body.data as any[]).find((b) => b.currency === 'EUR');
    return { rows, eur };
  };
  const timelineOf = async (key: string, paymentId: string) =>
    ((await request(stack.baseUrl, 'GET', `/v1/payments/${paymentId}/timeline`, { key })).body.data as any[]).map((t) => t.type);

  test('captured: the late charge is refunded at the first account once, the merchant told, the payment untouched', async () => {
    const m = await merchant();
    const res = await stack.pay(m.secret, { amount: 2500, payment_method: { type: 'card', token: 'pm_card_visa', provider_code: 'stripe' } });
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    assert.deepEqual(res.body.attempts.map((a: any) => [a.provider_account_id, a.outcome]), [[m.first, 'timeout'], [m.second, 'success']]);
    const late = intentOf(res.body.attempts[0].id);
    assert.equal(late.status, 'succeeded', 'Stripe had charged the first account');

    const notification = signed(stripeEvent('payment_intent.succeeded', late), WEBHOOK_SECRET);
    assert.equal((await deliver(stack.baseUrl, m.first, notification)).status, 200);
    await eventually('the late charge refunded', async () => (refundedAt(late.id) === 2500 ? true : undefined));
    const refund = [...stripe.refunds.values()].find((r) => r.payment_intent === late.id)!;
    assert.equal((refund.metadata as any).refund_id, `${res.body.attempts[0].id}_return`, 'keyed by the attempt');

    // The same notification again, and another event of the same success: nothing is returned twice.
    assert.equal((await deliver(stack.baseUrl, m.first, notification)).status, 200);
    assert.equal((await deliver(stack.baseUrl, m.first, signed(stripeEvent('payment_intent.succeeded', late), WEBHOOK_SECRET))).status, 200);
    await new Promise((r) => setTimeout(r, 1500)); // two reconciliation rounds
    assert.equal([...stripe.refunds.values()].filter((r) => r.payment_intent === late.id).length, 1, 'refunded once');

    // Charged once: the second account's charge stands, the first's came back.
    const paid = [...stripe.intents.values()].filter((pi) => (pi.metadata as any).payment_id === res.body.id && pi.status === 'succeeded');
    assert.equal(paid.reduce((t, pi) => t + Number(pi.amount_received), 0) - refundedAt(late.id), 2500);
    const after = (await request(stack.baseUrl, 'GET', `/v1/payments/${res.body.id}`, { key: m.secret })).body;
    assert.equal(after.status, 'successful');
    assert.equal(after.refunded_amount, 0, 'the merchant\'s payment is not refunded');
    const types = await timelineOf(m.secret, res.body.id);
    assert.equal(types.filter((t) => t === 'attempt.late_success').length, 1, types.join(', '));
    assert.equal(types.filter((t) => t === 'attempt.late_charge_returned').length, 1, types.join(', '));
    const events = await eventually('payment.late_charge_returned', async () => {
      const list = (await request(stack.baseUrl, 'GET', '/v1/events?type=payment.late_charge_returned', { key: m.secret })).body.data as any[];
      return list.length > 0 ? list : undefined;
    });
    assert.equal(events.length, 1);
    assert.equal(events[0].data.object.id, res.body.id);

    // The ledger: the payment's own movement at the second account, and at the first the late
    // charge and its refund, each once despite the replayed notifications; they net to zero, so the
    // balance is the payment's alone.
    const attempt = res.body.attempts[0].id;
    const { rows, eur } = await lateBooked(m.secret, res.body.id, attempt);
    await new Promise((r) => setTimeout(r, 500)); // late redeliveries would land here
    assert.deepEqual(await ledgerRows(res.body.id), rows);
    assert.deepEqual(rows, [
      { type: 'payment', movement_id: '', amount: 2500, fee_amount: after.fee.amount, provider_account_id: m.second },
      { type: 'payment', movement_id: `${attempt}:late_charge`, amount: 2500, fee_amount: 0, provider_account_id: m.first },
      { type: 'refund', movement_id: `${attempt}:late_return`, amount: -2500, fee_amount: 0, provider_account_id: m.first },
    ]);
    assert.equal(Number(eur.processed_gross), 2500);
    assert.equal(Number(eur.fees), after.fee.amount);
    assert.equal(Number(eur.processed_net), 2500 - after.fee.amount);
  });

  test('the sandbox\'s late_success scenario: the first demo provider\'s late charge is returned, the merchant told', async () => {
    const { secret } = await stack.newMerchantKey('test');
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: secret, body: { amount: 1200, currency: 'EUR', payment_method: 'card', test_scenario: 'late_success' },
    });
    assert.equal(res.body.status, 'successful', JSON.stringify(res.body));
    assert.deepEqual(res.body.attempts.map((a: any) => a.outcome), ['timeout', 'success']);
    const types = await eventually('the late charge returned', async () => {
      const t = await timelineOf(secret, res.body.id);
      return t.includes('attempt.late_charge_returned') ? t : undefined;
    });
    assert.equal(types.filter((t) => t === 'attempt.late_success').length, 1, types.join(', '));
    const events = await eventually('payment.late_charge_returned', async () => {
      const list = (await request(stack.baseUrl, 'GET', '/v1/events?type=payment.late_charge_returned', { key: secret })).body.data as any[];
      return list.length > 0 ? list : undefined;
    });
    assert.deepEqual(events.map((e) => [e.data.object.id, e.data.object.status]), [[res.body.id, 'successful']]);
    const [first, second] = res.body.attempts;
    const { rows, eur } = await lateBooked(secret, res.body.id, first.id);
    assert.deepEqual(rows.map((t) => [t.type, t.movement_id, t.amount, t.provider_account_id]), [
      ['payment', '', 1200, second.provider_account_id],
      ['payment', `${first.id}:late_charge`, 1200, first.provider_account_id],
      ['refund', `${first.id}:late_return`, -1200, first.provider_account_id],
    ]);
    assert.equal(Number(eur.processed_gross), 1200, 'the late pair nets to zero');
  });

  test('the ledger books each kind of a late pair once, whatever the order or number of deliveries; a refund keeps the payment\'s account', async () => {
    const { secret, merchantId, projectId } = await stack.newMerchantKey('test');
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: secret, body: { amount: 3000, currency: 'EUR', payment_method: 'card', test_scenario: 'late_success' },
    });
    const [first, second] = res.body.attempts;
    const { rows } = await lateBooked(secret, res.body.id, first.id);
    assert.equal(rows.length, 3);

    // Every late event again, the return first, each under a new event id and its own again.
    const { rows: sent } = await stack.query(
      `SELECT payload FROM payments.outbox WHERE type = $1 AND payload->'data'->'object'->>'payment_id' = $2`,
      [INTERNAL_EVENT_TYPES.lateChargeMoved, res.body.id],
    );
    assert.deepEqual(sent.map((r) => r.payload.data.object.kind).sort(), ['charged', 'returned']);
    const replays = [...sent].reverse().flatMap(({ payload }) => [payload, { ...payload, id: newId('evt') }]);
    // A return that arrives before its charge is booked at once; its charge, when it comes, beside it.
    const scope = { mode: 'test', merchantId, projectId };
    const lone = { id: newId('att'), payment_id: res.body.id, amount: 700, fee_amount: 0, currency: 'EUR', provider_code: 'demo_alpha',
      provider_account_id: first.provider_account_id, provider_payment_id: null, moved_at: new Date().toISOString(), version: 1 };
    const loneEvent = (kind: string) => internalEnvelope(newId('evt'), scope, new Date(), { type: INTERNAL_EVENT_TYPES.lateChargeMoved, object: { ...lone, kind } });
    await publishAll(stack.testBus.bus, stack.testBus.nats!.subjectPrefix, [...replays, loneEvent('returned')]);
    await eventually('the lone return booked', async () =>
      ((await ledgerRows(res.body.id)).some((t) => t.movement_id === `${lone.id}:late_return`) ? true : undefined));
    await publishAll(stack.testBus.bus, stack.testBus.nats!.subjectPrefix, [loneEvent('charged'), loneEvent('charged')]);

    // A refund of the payment takes the payment's own account, not the late charge's.
    const refunded = await request(stack.baseUrl, 'POST', `/v1/payments/${res.body.id}/refund`, { key: secret, body: { amount: 500 } });
    assert.equal(refunded.status, 201, JSON.stringify(refunded.body));
    const refund = await eventually('the refund booked', async () => (await stack.query(
      `SELECT provider_account_id, amount::int FROM ledger.transactions WHERE entity_type = 'refund' AND payment_id = $1`, [res.body.id],
    )).rows[0]);
    assert.deepEqual(refund, { provider_account_id: second.provider_account_id, amount: -500 });

    const all = (await ledgerRows(res.body.id)).map((t) => [t.type, t.movement_id, t.amount]);
    assert.deepEqual(all, [
      ['payment', '', 3000],
      ['payment', `${lone.id}:late_charge`, 700],
      ['payment', `${first.id}:late_charge`, 3000],
      ['refund', '', -500],
      ['refund', `${lone.id}:late_return`, -700],
      ['refund', `${first.id}:late_return`, -3000],
    ].sort((a, b) => `${a[0]}|${a[1]}`.localeCompare(`${b[0]}|${b[1]}`)));
    const eur = ((await request(stack.baseUrl, 'GET', '/v1/balances', { key: secret })).body.data as any[]).find((b) => b.currency === 'EUR');
    assert.equal(Number(eur.processed_gross), 2500, 'the payment less its refund: the late pairs net to zero');
  });

  test('only authorized: the late hold is released at the first account', async () => {
    const m = await merchant();
    const res = await stack.pay(m.secret, { amount: 1800, capture_method: 'manual', payment_method: { type: 'card', token: 'pm_card_visa', provider_code: 'stripe' } });
    assert.equal(res.body.status, 'authorized', JSON.stringify(res.body));
    const late = intentOf(res.body.attempts[0].id);
    assert.equal(late.status, 'requires_capture');
    const notification = signed(stripeEvent('payment_intent.amount_capturable_updated', late), WEBHOOK_SECRET);
    assert.equal((await deliver(stack.baseUrl, m.first, notification)).status, 200);
    await eventually('the late hold released', async () => (stripe.intents.get(late.id)!.status === 'canceled' ? true : undefined));
    assert.equal(refundedAt(late.id), 0);
    assert.equal((await request(stack.baseUrl, 'GET', `/v1/payments/${res.body.id}`, { key: m.secret })).body.status, 'authorized');
    await eventually('the release on the timeline', async () =>
      ((await timelineOf(m.secret, res.body.id)).includes('attempt.late_charge_returned') ? true : undefined));
    // A hold moved no money: the ledger books no late pair for it.
    const internal = await stack.query(`SELECT count(*)::int AS n FROM payments.outbox WHERE type = 'internal.late_charge.moved'
      AND payload->'data'->'object'->>'payment_id' = $1`, [res.body.id]);
    assert.equal(internal.rows[0].n, 0);
  });
});
