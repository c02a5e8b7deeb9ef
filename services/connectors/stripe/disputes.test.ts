// Stripe's Dispute read as the contract's dispute: its statuses as stages and statuses, the funds
// from its balance transactions, the fee only when booked in the dispute's currency, and our
// evidence as Stripe's fields.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type Stripe from 'stripe';
import { disputeOf, evidenceParams } from './disputes.js';

const AT = new Date('2026-12-01T10:00:00Z');
const dispute = (status: string, bts: Array<{ amount: number; fee: number; currency?: string }> = [], reason = 'fraudulent') => ({
  id: 'dp_1', amount: 2500, currency: 'eur', payment_intent: 'pi_1', reason, status,
  balance_transactions: bts.map((b) => ({ currency: 'eur', ...b })), evidence_details: { due_by: 1_767_225_600 },
}) as unknown as Stripe.Dispute;

test('statuses are stages and statuses; won and lost keep the dispute\'s stage', () => {
  const view = (s: string) => {
    const d = disputeOf(dispute(s), AT);
    return [d.stage, d.status];
  };
  assert.deepEqual(view('warning_needs_response'), ['inquiry', 'needs_response']);
  assert.deepEqual(view('warning_closed'), ['inquiry', 'cancelled']);
  assert.deepEqual(view('needs_response'), ['chargeback', 'needs_response']);
  assert.deepEqual(view('appeal_under_review'), ['pre_arbitration', 'under_review']);
  assert.deepEqual(view('won'), [null, 'won']);
  assert.deepEqual(view('lost'), [null, 'lost']);
  assert.deepEqual(view('prevented'), [null, 'cancelled']);
});

test('funds withdrawn while the balance transactions take more than they gave; the fee only in the dispute\'s currency', () => {
  const withdrawn = disputeOf(dispute('needs_response', [{ amount: -2500, fee: 1500 }]), AT);
  assert.deepEqual([withdrawn.fundsWithdrawn, withdrawn.feeAmount, withdrawn.amount, withdrawn.currency], [true, 1500n, 2500n, 'EUR']);
  const back = disputeOf(dispute('won', [{ amount: -2500, fee: 1500 }, { amount: 2500, fee: 0 }]), AT);
  assert.equal(back.fundsWithdrawn, false);
  const elsewhere = disputeOf(dispute('needs_response', [{ amount: -2700, fee: 1500, currency: 'usd' }]), AT);
  assert.deepEqual([elsewhere.fundsWithdrawn, elsewhere.feeAmount], [true, undefined]);
  assert.deepEqual([disputeOf(dispute('needs_response'), AT).evidenceDueBy?.toISOString(), disputeOf(dispute('needs_response', [], 'insufficient_funds'), AT).reason],
    ['2026-01-01T00:00:00.000Z', 'general']);
});

test('evidence: Stripe\'s own fields, the customer communication in the text, documents in file fields in order', () => {
  assert.deepEqual(evidenceParams({
    product_description: 'A lamp', customer_communication: 'Mail of 2 May', refund_policy: '30 days', uncategorized_text: 'Delivered.',
  }, ['file_1', 'file_2']), {
    product_description: 'A lamp', refund_policy_disclosure: '30 days',
    uncategorized_text: 'Customer communication:\nMail of 2 May\n\nDelivered.', uncategorized_file: 'file_1', receipt: 'file_2',
  });
});
