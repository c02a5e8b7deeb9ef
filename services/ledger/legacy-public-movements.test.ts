import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventEnvelope } from '../contract/index.js';
import { movementFromLegacyPublicEvent as movementFromEvent } from './legacy-public-movements.js';
import { reversal } from './movements.js';

const envelope = (type: string, object: Record<string, unknown>): EventEnvelope => ({
  id: 'evt_1', type, mode: 'test', merchant_id: 'mer_1', project_id: 'prj_1', created_at: '2026-01-02T03:04:05.006Z',
  data: { object },
});

const payment = {
  id: 'pay_1', amount: 6000, currency: 'EUR', captured_amount: 4000, payment_method: { type: 'card', id: null },
  country: 'DE',
  route: {
    provider: { id: 'prv_b', code: 'demo_beta', name: 'Demo Beta' }, provider_account_id: 'pac_b', provider_payment_id: 'pp_1',
  },
  fee: { amount: 170, currency: 'EUR' }, processing_time_ms: 12, failure: null,
};

test('payment.successful: the captured amount, its fee and the route', () => {
  const m = movementFromEvent(envelope('payment.successful', payment))!;
  assert.equal(m.type, 'payment');
  assert.equal(m.status, 'successful');
  assert.equal(m.amount, 4000n, 'a partial capture records what was captured');
  assert.equal(m.feeAmount, 170n);
  assert.deepEqual([m.providerName, m.providerAccountId, m.providerReference], ['Demo Beta', 'pac_b', 'pp_1']);
  assert.deepEqual([m.paymentMethod, m.country, m.processingTimeMs], ['card', 'DE', 12]);
  assert.deepEqual(m.scope, { merchantId: 'mer_1', projectId: 'prj_1', mode: 'test' });
  assert.equal(m.occurredAt.toISOString(), '2026-01-02T03:04:05.006Z');
});

test('payment.failed: the attempted amount, no fee, the failure code; no provider when none was tried', () => {
  const m = movementFromEvent(envelope('payment.failed', {
    ...payment, captured_amount: 0, route: { provider: null, provider_account_id: null, provider_payment_id: null },
    failure: { code: 'risk_blocked', category: 'policy', message: '' },
  }))!;
  assert.deepEqual([m.status, m.amount, m.feeAmount, m.failureCode, m.providerAccountId], ['failed', 6000n, 0n, 'risk_blocked', null]);
});

test('refunds are negative and take their provider from the payment; payouts are negative with their fee', () => {
  const r = movementFromEvent(envelope('refund.failed', {
    id: 'rf_1', payment_id: 'pay_1', amount: 400, currency: 'EUR', provider_refund_id: null,
    failure: { code: 'hard_decline', category: 'hard', message: '' },
  }))!;
  assert.deepEqual(
    [r.type, r.entityType, r.paymentId, r.amount, r.status, r.failureCode], ['refund', 'refund', 'pay_1', -400n, 'failed', 'hard_decline'],
  );
  assert.equal(r.inheritsFromPayment, true);

  const payout = {
    id: 'po_1', amount: 5000, currency: 'EUR', destination: { type: 'bank_account', country: 'FR' },
    route: { provider: { name: 'Demo Beta' }, provider_account_id: 'pac_b', provider_payout_id: 'ppo_1' },
    fee: { amount: 20, currency: 'EUR' }, failure: null,
  };
  const sent = movementFromEvent(envelope('payout.successful', payout))!;
  assert.deepEqual([sent.type, sent.amount, sent.feeAmount, sent.paymentId, sent.country], ['payout', -5000n, 20n, null, 'FR']);
  const failed = movementFromEvent(envelope('payout.failed', { ...payout, failure: { code: 'provider_error' } }))!;
  assert.deepEqual([failed.status, failed.feeAmount, failed.failureCode], ['failed', 0n, 'provider_error']);
});

test('events that move no money record nothing', () => {
  for (const type of [
    'payment.created', 'payment.processing', 'payment.authorized', 'payment.cancelled', 'payment.refunded',
    'payout.created', 'settlement.created', 'something.new',
  ]) {
    assert.equal(movementFromEvent(envelope(type, payment)), undefined, type);
  }
});

test('refund.failed of a refund the provider had accepted: an adjustment of +amount that reverses it, once it is recorded', () => {
  const failedLater = {
    id: 'rf_2', payment_id: 'pay_1', amount: 700, currency: 'EUR', status: 'failed', provider_refund_id: 're_2',
    failure: { code: 'refund_failed', category: 'hard', message: '' },
  };
  const m = movementFromEvent(envelope('refund.failed', failedLater))!;
  assert.deepEqual(
    [m.type, m.status, m.entityType, m.entityId, m.paymentId, m.amount, m.feeAmount, m.failureCode, m.providerReference],
    ['adjustment', 'successful', 'refund', 'rf_2', 'pay_1', 700n, 0n, 'refund_failed', 're_2'],
  );
  assert.deepEqual([m.inheritsFromPayment, m.reversesRefund], [true, true]);
  // The same refund succeeding was recorded as -700: together they moved nothing.
  const ok = movementFromEvent(envelope('refund.successful', { ...failedLater, status: 'successful', failure: null }))!;
  assert.equal(ok.amount - ok.feeAmount + (m.amount - m.feeAmount), 0n);
  assert.equal(ok.reversesRefund, false);
  // A refund the provider refused at once was never recorded as successful: a failed refund, as before.
  const refused = movementFromEvent(envelope('refund.failed', { ...failedLater, failure: { code: 'hard_decline' } }))!;
  assert.deepEqual([refused.type, refused.status, refused.reversesRefund], ['refund', 'failed', false]);
});

test('payout.failed of a payout already sent (its bank returned it): reversal makes it an adjustment of +amount, no fee', () => {
  const returned = {
    id: 'po_2', amount: 5000, currency: 'EUR', destination: { type: 'bank_account', country: 'FR' },
    route: { provider: { name: 'Stripe' }, provider_account_id: 'pac_s', provider_payout_id: 'po_stripe_2' },
    fee: { amount: 20, currency: 'EUR' }, failure: { code: 'account_closed' },
  };
  const m = reversal(movementFromEvent(envelope('payout.failed', returned))!);
  assert.deepEqual(
    [m.type, m.status, m.entityType, m.entityId, m.amount, m.feeAmount, m.failureCode, m.providerReference, m.paymentId],
    ['adjustment', 'successful', 'payout', 'po_2', 5000n, 0n, 'account_closed', 'po_stripe_2', null],
  );
});
