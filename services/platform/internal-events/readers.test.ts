import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventEnvelope } from '../../contract/envelope.js';
import { attemptSettledOf } from './attempt-settled.js';
import { disputeFundsMovedOf } from './dispute-funds-moved.js';
import { lateChargeMovedOf } from './late-charge-moved.js';
import { paymentDecidedObject, paymentDecidedOf } from './payment-decided.js';
import { payoutSettledOf } from './payout-settled.js';
import { refundSettledOf } from './refund-settled.js';
import { INTERNAL_EVENT_TYPES } from './types.js';

const AT = '2026-01-02T03:04:05.006Z';
const envelope = (type: string, object: Record<string, unknown>): EventEnvelope => ({
  id: 'evt_1', type, mode: 'test', merchant_id: 'mer_1', project_id: 'prj_1', created_at: AT, data: { object },
});

const cases = [
  {
    read: paymentDecidedOf, type: INTERNAL_EVENT_TYPES.paymentDecided,
    object: {
      version: 1, id: 'pay_1', status: 'successful', amount: 100, captured_amount: 100, currency: 'EUR', fee_amount: 3,
      payment_method: 'card', country: null, provider_id: 'prv_a', provider_code: 'a', provider_name: 'A',
      provider_account_id: 'pac_a', provider_payment_id: 'pp_1', processing_time_ms: null, failure_code: null,
      failure_category: null, decided_at: AT,
    },
    broken: [{ status: 'authorized' }, { captured_amount: 1.5 }, { fee_amount: '3' }, { provider_account_id: 7 }],
  },
  {
    read: refundSettledOf, type: INTERNAL_EVENT_TYPES.refundSettled,
    object: {
      version: 1, id: 'rf_1', payment_id: 'pay_1', status: 'failed', after_acceptance: true, amount: 100, currency: 'EUR',
      provider_refund_id: 're_1', failure_code: 'refund_failed', failure_category: 'hard', settled_at: AT,
    },
    // A successful refund cannot have failed after acceptance.
    broken: [{ status: 'successful' }, { after_acceptance: 'yes' }, { payment_id: '' }, { amount: -1.5 }],
  },
  {
    read: payoutSettledOf, type: INTERNAL_EVENT_TYPES.payoutSettled,
    object: {
      version: 1, id: 'po_1', status: 'successful', amount: 100, currency: 'EUR', fee_amount: 0, provider_id: null,
      provider_code: null, provider_name: null, provider_account_id: null, provider_payout_id: null, destination_country: 'FR',
      failure_code: null, failure_category: null, settled_at: AT,
    },
    broken: [{ status: 'pending' }, { fee_amount: null }, { currency: '' }, { destination_country: 1 }],
  },
  {
    read: disputeFundsMovedOf, type: INTERNAL_EVENT_TYPES.disputeFundsMoved,
    object: {
      version: 1, id: 'dpm_1', dispute_id: 'dp_1', payment_id: 'pay_1', kind: 'withdrawal', amount: 2500, fee_amount: 1500,
      currency: 'EUR', reason: 'fraudulent', stage: 'chargeback', provider_id: 'prv_a', provider_code: 'stripe',
      provider_name: 'Stripe', provider_account_id: 'pac_a', provider_dispute_id: 'dp_x', moved_at: AT,
    },
    broken: [{ kind: 'won' }, { amount: -1 }, { fee_amount: 1.5 }, { dispute_id: '' }, { stage: null }],
  },
  {
    read: lateChargeMovedOf, type: INTERNAL_EVENT_TYPES.lateChargeMoved,
    object: {
      version: 1, id: 'att_1', payment_id: 'pay_1', kind: 'charged', amount: 2500, fee_amount: 0, currency: 'EUR',
      provider_code: 'stripe', provider_account_id: 'pac_a', provider_payment_id: 'pi_1', moved_at: AT,
    },
    broken: [{ kind: 'released' }, { amount: -1 }, { fee_amount: null }, { id: '' }, { provider_account_id: null }],
  },
];

for (const c of cases) {
  test(`${c.type}: version 1, complete, of its own type only`, () => {
    assert.ok(c.read(envelope(c.type, c.object)));
    assert.equal(c.read(envelope(c.type, { ...c.object, version: 2 })), undefined, 'another version');
    assert.equal(c.read(envelope('payment.successful', c.object)), undefined, 'a public type');
    assert.equal(c.read({ ...envelope(c.type, c.object), merchant_id: '' }), undefined, 'without its scope');
    assert.equal(c.read({ ...envelope(c.type, c.object), created_at: 'yesterday' }), undefined, 'without its time');
    for (const change of c.broken) {
      assert.equal(c.read(envelope(c.type, { ...c.object, ...change })), undefined, JSON.stringify(change));
    }
  });
}

test('a reader hands over amounts as Minor; a producer writes them as JSON numbers', () => {
  const c = cases[0];
  const read = paymentDecidedOf(envelope(c.type, c.object))!.data.object;
  assert.deepEqual([read.amount, read.captured_amount, read.fee_amount], [100n, 100n, 3n]);
  const wire = paymentDecidedObject(read).object;
  assert.deepEqual(wire, c.object, 'what it read, written back as it travels');
  assert.equal(paymentDecidedOf(envelope(c.type, { ...c.object, amount: 2 ** 53 })), undefined, 'beyond a JSON number\'s exact integers');
  assert.throws(() => paymentDecidedObject({ ...read, amount: 2n ** 53n }), RangeError);
});

test('an attempt.settled from before amounts rode it reads with a null amount', () => {
  const object = {
    version: 1, id: 'att_1', payment_id: 'pay_1', attempt_number: 1, provider_id: 'prv_a', provider_code: 'a',
    provider_account_id: 'pac_a', payment_method: 'card', currency: 'EUR', country: null, card_network: null, bin_range: null,
    status: 'succeeded', outcome: 'success', failure_category: null, failure_code: null, latency_ms: 5, settled_at: AT,
  };
  const type = INTERNAL_EVENT_TYPES.attemptSettled;
  assert.equal(attemptSettledOf(envelope(type, object))!.data.object.amount, null);
  assert.equal(attemptSettledOf(envelope(type, { ...object, amount: 2500 }))!.data.object.amount, 2500n);
});
