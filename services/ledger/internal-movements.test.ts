import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventEnvelope } from '../contract/index.js';
import type {
  DisputeFundsMoved, PaymentDecided, PayoutSettled, RefundSettled, Wire,
} from '../platform/internal-events.js';
import { UnreadableMoneyEvent, movementFromInternalEvent } from './internal-movements.js';
import { movementFromLegacyPublicEvent } from './legacy-public-movements.js';
import { movementFromEvent } from './money-events.js';

const AT = '2026-01-02T03:04:05.006Z';
const envelope = (type: string, object: object): EventEnvelope => ({
  id: `evt_${type}`, type, mode: 'test', merchant_id: 'mer_1', project_id: 'prj_1', created_at: AT,
  data: { object: object as Record<string, unknown> },
});

const decided: Wire<PaymentDecided> = {
  version: 1, id: 'pay_1', status: 'successful', amount: 6000, captured_amount: 4000, currency: 'EUR', fee_amount: 170,
  payment_method: 'card', country: 'DE', provider_id: 'prv_b', provider_code: 'demo_beta', provider_name: 'Demo Beta',
  provider_account_id: 'pac_b', provider_payment_id: 'pp_1', processing_time_ms: 12, failure_code: null,
  failure_category: null, decided_at: AT,
};
// The same payment as its public event shows it (PaymentJson, the fields the legacy reader takes).
const paymentJson = {
  id: 'pay_1', amount: 6000, currency: 'EUR', captured_amount: 4000, payment_method: { type: 'card', id: null }, country: 'DE',
  route: { provider: { id: 'prv_b', code: 'demo_beta', name: 'Demo Beta' }, provider_account_id: 'pac_b', provider_payment_id: 'pp_1' },
  fee: { amount: 170, currency: 'EUR' }, processing_time_ms: 12, failure: null, status: 'successful',
};

const refund: Wire<RefundSettled> = {
  version: 1, id: 'rf_1', payment_id: 'pay_1', status: 'successful', after_acceptance: false, amount: 700, currency: 'EUR',
  provider_refund_id: 're_1', failure_code: null, failure_category: null, settled_at: AT,
};
const refundJson = { id: 'rf_1', payment_id: 'pay_1', amount: 700, currency: 'EUR', status: 'successful', provider_refund_id: 're_1', failure: null };

const payout: Wire<PayoutSettled> = {
  version: 1, id: 'po_1', status: 'successful', amount: 5000, currency: 'EUR', fee_amount: 20, provider_id: 'prv_b',
  provider_code: 'demo_beta', provider_name: 'Demo Beta', provider_account_id: 'pac_b', provider_payout_id: 'ppo_1',
  destination_country: 'FR', failure_code: null, failure_category: null, settled_at: AT,
};
const payoutJson = {
  id: 'po_1', amount: 5000, currency: 'EUR', status: 'successful', destination: { type: 'bank_account', country: 'FR' },
  route: { provider: { id: 'prv_b', code: 'demo_beta', name: 'Demo Beta' }, provider_account_id: 'pac_b', provider_payout_id: 'ppo_1' },
  fee: { amount: 20, currency: 'EUR' }, failure: null,
};

const failure = (code: string, category = 'hard') => ({ code, category, message: '' });

/** An internal event and the public one of the same change record the same movement. */
function same(internal: EventEnvelope, legacy: EventEnvelope): void {
  const m = movementFromEvent(internal);
  assert.ok(m, internal.type);
  assert.deepEqual(m, movementFromLegacyPublicEvent(legacy), `${internal.type} as ${legacy.type}`);
}

test('payment.decided records what the legacy reader took from payment.successful / .failed', () => {
  same(envelope('internal.payment.decided', decided), envelope('payment.successful', paymentJson));
  const m = movementFromInternalEvent(envelope('internal.payment.decided', decided))!;
  assert.deepEqual([m.type, m.status, m.amount, m.feeAmount, m.providerAccountId], ['payment', 'successful', 4000n, 170n, 'pac_b']);
  // A risk block: no provider, the attempted amount, no fee.
  same(
    envelope('internal.payment.decided', {
      ...decided, status: 'failed', captured_amount: 0, fee_amount: 0, provider_id: null, provider_code: null, provider_name: null,
      provider_account_id: null, provider_payment_id: null, failure_code: 'risk_blocked', failure_category: 'policy',
    }),
    envelope('payment.failed', {
      ...paymentJson, status: 'failed', captured_amount: 0, fee: { amount: 0, currency: 'EUR' },
      route: { provider: null, provider_account_id: null, provider_payment_id: null }, failure: failure('risk_blocked', 'policy'),
    }),
  );
});

test('refund.settled: a success, a refusal, and a failure after acceptance (its reversal) as the legacy reader recorded them', () => {
  same(envelope('internal.refund.settled', refund), envelope('refund.successful', refundJson));
  same(
    envelope('internal.refund.settled', { ...refund, status: 'failed', provider_refund_id: null, failure_code: 'hard_decline' }),
    envelope('refund.failed', { ...refundJson, status: 'failed', provider_refund_id: null, failure: failure('hard_decline') }),
  );
  const later = envelope('internal.refund.settled', { ...refund, status: 'failed', after_acceptance: true, failure_code: 'refund_failed' });
  same(later, envelope('refund.failed', { ...refundJson, status: 'failed', failure: failure('refund_failed') }));
  const m = movementFromInternalEvent(later)!;
  assert.deepEqual([m.type, m.status, m.amount, m.reversesRefund, m.inheritsFromPayment], ['adjustment', 'successful', 700n, true, true]);
});

test('payout.settled: sent with its fee, failed without', () => {
  same(envelope('internal.payout.settled', payout), envelope('payout.successful', payoutJson));
  same(
    envelope('internal.payout.settled', { ...payout, status: 'failed', failure_code: 'account_closed' }),
    envelope('payout.failed', { ...payoutJson, status: 'failed', failure: failure('account_closed') }),
  );
});

const withdrawal: Wire<DisputeFundsMoved> = {
  version: 1, id: 'dpm_1', dispute_id: 'dp_1', payment_id: 'pay_1', kind: 'withdrawal', amount: 2500, fee_amount: 1500,
  currency: 'EUR', reason: 'fraudulent', stage: 'chargeback', provider_id: 'prv_s', provider_code: 'stripe',
  provider_name: 'Stripe', provider_account_id: 'pac_s', provider_dispute_id: 'du_1', moved_at: AT,
};

test('dispute.funds_moved: a withdrawal of minus the amount with the dispute fee, a reinstatement of plus the amount', () => {
  const w = movementFromEvent(envelope('internal.dispute.funds_moved', withdrawal))!;
  assert.deepEqual(
    [w.type, w.status, w.entityType, w.entityId, w.movementId, w.paymentId, w.amount, w.feeAmount, w.providerReference],
    ['dispute', 'successful', 'dispute', 'dp_1', 'dpm_1', 'pay_1', -2500n, 1500n, 'du_1'],
  );
  assert.equal(w.inheritsFromPayment, true, 'method and country come from the payment, which it waits for');
  const r = movementFromEvent(envelope('internal.dispute.funds_moved', { ...withdrawal, id: 'dpm_2', kind: 'reinstatement', fee_amount: 0 }))!;
  assert.deepEqual([r.type, r.entityId, r.movementId, r.amount, r.feeAmount], ['dispute_reversal', 'dp_1', 'dpm_2', 2500n, 0n]);
  assert.throws(
    () => movementFromEvent(envelope('internal.dispute.funds_moved', { ...withdrawal, kind: 'chargeback' })), UnreadableMoneyEvent,
  );
});

test('internal events that move no money record nothing; a money event of another version is redelivered, not dropped', () => {
  assert.equal(movementFromEvent(envelope('internal.attempt.settled', { version: 1, id: 'att_1' })), undefined);
  assert.equal(movementFromEvent(envelope('internal.something.new', { version: 1 })), undefined);
  for (const [type, object] of [
    ['internal.payment.decided', { ...decided, version: 2 }],
    ['internal.refund.settled', { ...refund, amount: '700' }],
    ['internal.payout.settled', { ...payout, status: 'returned' }],
  ] as const) {
    assert.throws(() => movementFromEvent(envelope(type, object)), UnreadableMoneyEvent, type);
  }
});
