// Adyen's dispute notification items read as the contract's dispute: each event code's stage,
// status and money, the scheme reason codes normalised, a JPY amount in our units, and the defense
// reason chosen for the merchant's evidence among those Adyen offers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Types } from '@adyen/api-library';
import { defenseReason, disputeOf, isDisputeEvent } from './disputes.js';

const AT = new Date('2026-12-01T10:00:00Z');
const item = (eventCode: string, extra: Record<string, string> = {}, amount = { value: 2500, currency: 'EUR' }) => ({
  eventCode, pspReference: 'DSPT1', originalReference: 'PSP9', merchantReference: 'att_1', merchantAccountCode: 'Acme',
  amount, success: 'true', eventDate: AT.toISOString(), additionalData: extra,
}) as unknown as Types.notification.NotificationRequestItem;

test('each dispute event code is its stage, status and money; other codes stay the payment notifications\'', () => {
  const view = (code: string, extra?: Record<string, string>) => {
    const d = disputeOf(item(code, extra), AT);
    return [d.stage, d.status, d.fundsWithdrawn];
  };
  assert.deepEqual(view('REQUEST_FOR_INFORMATION'), ['inquiry', 'needs_response', false]);
  assert.deepEqual(view('NOTIFICATION_OF_CHARGEBACK'), ['chargeback', 'needs_response', false]);
  assert.deepEqual(view('CHARGEBACK', { disputeStatus: 'Undefended' }), ['chargeback', 'needs_response', true]);
  assert.deepEqual(view('CHARGEBACK', { disputeStatus: 'Lost' }), ['chargeback', 'lost', true]);
  assert.deepEqual(view('CHARGEBACK_REVERSED'), ['chargeback', 'won', false]);
  assert.deepEqual(view('SECOND_CHARGEBACK'), ['pre_arbitration', 'lost', true]);
  assert.deepEqual(view('PREARBITRATION_WON'), ['pre_arbitration', 'won', false]);
  assert.deepEqual(view('INFORMATION_SUPPLIED'), [null, 'under_review', false]);
  assert.deepEqual(view('DISPUTE_DEFENSE_PERIOD_ENDED'), [null, 'expired', false]);
  assert.equal(isDisputeEvent('AUTHORISATION'), false);
  assert.equal(isDisputeEvent('ISSUER_COMMENTS'), false, 'comments change nothing');
});

test('the dispute, the payment and our attempt are named; reasons by scheme code; amounts in our units', () => {
  const d = disputeOf(item('CHARGEBACK', {
    chargebackReasonCode: '4855', chargebackSchemeCode: 'mc', defensePeriodEndsAt: '2026-12-20T10:00:00+01:00',
  }, { value: 1500, currency: 'JPY' }), AT);
  assert.deepEqual([d.providerDisputeId, d.providerPaymentId, d.attemptId], ['DSPT1', 'PSP9', 'att_1']);
  assert.deepEqual([d.reason, d.providerReason, d.amount, d.currency], ['product_not_received', 'mc 4855', 1500n, 'JPY']);
  assert.equal(d.evidenceDueBy?.toISOString(), '2026-12-20T09:00:00.000Z');
  const reason = (code: string) => disputeOf(item('CHARGEBACK', { chargebackReasonCode: code }), AT).reason;
  assert.deepEqual(['10.4', '12.6.1', '13.2', '13.3', '13.6', '4837', 'F29', '99'].map(reason),
    ['fraudulent', 'duplicate', 'subscription_canceled', 'product_unacceptable', 'credit_not_processed', 'fraudulent', 'fraudulent', 'general']);
});

test('the defense reason: goods provided when a shipment is named, else the general defense material, else Adyen\'s first', () => {
  const offered = (...codes: string[]) => codes.map((defenseReasonCode) => ({ defenseReasonCode, satisfied: false }));
  assert.equal(defenseReason(offered('SupplyDefenseMaterial', 'GoodsOrServicesProvided'), { shipping_tracking_number: '1Z' })?.defenseReasonCode, 'GoodsOrServicesProvided');
  assert.equal(defenseReason(offered('GoodsOrServicesProvided', 'SupplyDefenseMaterial'), {})?.defenseReasonCode, 'SupplyDefenseMaterial');
  assert.equal(defenseReason(offered('MerchandiseReceived'), {})?.defenseReasonCode, 'MerchandiseReceived');
  assert.equal(defenseReason([], {}), undefined);
});
