import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { PaymentSchema } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import { RefundSchema } from '../../proto/gen/svc/payments/v1/refunds_pb.js';
import { SettlementSchema } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import { PayoutSchema } from '../../proto/gen/svc/payouts/v1/payouts_pb.js';
import { DisputeSchema } from '../../proto/gen/svc/payments/v1/disputes_pb.js';
import { newId } from '../platform/ids.js';
import { type EventEnvelope } from '../contract/index.js';
import {
  disputeJson, paymentJson, payoutJson, refundJson, settlementJson, type DisputeJson, type PaymentJson, type PayoutJson,
  type RefundJson, type SettlementJson,
} from '../contract/index.js';
import type { Scope } from './endpoints.js';

// POST /v1/webhooks/test sends a sample of the resource the event type is about, serialised
// like the API (the shared contract serialisers), so a receiver's parser meets
// the real shape. Its ids are fresh and match nothing stored anywhere.

function samplePayment(type: string, mode: string, at: Date): PaymentJson {
  const ts = timestampFromDate(at);
  const status = {
    'payment.created': 'created', 'payment.processing': 'processing', 'payment.authorized': 'authorized',
    'payment.failed': 'failed', 'payment.cancelled': 'cancelled', 'payment.refunded': 'refunded',
  }[type] ?? 'successful';
  const done = ['successful', 'refunded'].includes(status);
  const attempt = status === 'created' ? [] : [{
    id: newId('att', at), attemptNumber: 1, providerId: 'prv_demo_alpha', providerName: 'Demo Alpha',
    providerAccountId: 'pac_demo_alpha', providerPaymentId: 'demo_alpha_sample',
    status: { failed: 'failed', processing: 'processing', authorized: 'authorized', cancelled: 'cancelled' }[status] ?? 'succeeded',
    outcome: { failed: 'soft_decline', processing: 'requires_action', cancelled: 'success' }[status] ?? 'success',
    feeAmount: done ? 39n : 0n, latencyMs: 120, createdAt: ts,
  }];
  return paymentJson(create(PaymentSchema, {
    id: newId('pay', at), mode, status, amount: 1000n, currency: 'EUR',
    capturedAmount: done ? 1000n : 0n, refundedAmount: status === 'refunded' ? 1000n : 0n,
    captureMethod: status === 'authorized' ? 'manual' : 'automatic', paymentMethodType: 'card',
    description: 'Test webhook event', reference: 'test_webhook', metadata: {},
    route: {
      provider: { id: 'prv_demo_alpha', code: 'demo_alpha', name: 'Demo Alpha' }, providerAccountId: 'pac_demo_alpha',
      providerPaymentId: status === 'created' ? undefined : 'demo_alpha_sample', attempts: attempt.length, rule: 'default',
    },
    risk: { score: 0 },
    failure: status === 'failed' ? { code: 'soft_decline', category: 'soft', message: 'The provider declined the payment.', declineReason: 'do_not_honor' } : undefined,
    feeAmount: done ? 39n : 0n, feeCurrency: 'EUR', attempts: attempt,
    createdAt: ts, updatedAt: ts, processedAt: done || status === 'failed' ? ts : undefined,
  }));
}

function sampleRefund(type: string, at: Date): RefundJson {
  const failed = type === 'refund.failed';
  return refundJson(create(RefundSchema, {
    id: newId('rf', at), paymentId: newId('pay', at), amount: 500n, currency: 'EUR',
    status: failed ? 'failed' : 'successful', reason: 'Test webhook event',
    providerRefundId: failed ? undefined : 'demo_alpha_refund_sample',
    failure: failed ? { code: 'hard_decline', category: 'hard', message: 'The provider refused the refund.' } : undefined,
    createdAt: timestampFromDate(at),
  }));
}

function samplePayout(type: string, mode: string, at: Date): PayoutJson {
  // The statuses the payouts part has when it emits each event (payout.created: queued, still `created`).
  const status = {
    'payout.created': 'created', 'payout.successful': 'successful', 'payout.failed': 'failed', 'payout.cancelled': 'cancelled',
  }[type] ?? 'created';
  return payoutJson(create(PayoutSchema, {
    id: newId('po', at), mode, status, amount: 2500n, currency: 'EUR',
    destination: { type: 'bank_account', display: '•••• 4321', holderName: 'Test Recipient', country: 'DE' },
    route: {
      provider: { id: 'prv_demo_alpha', code: 'demo_alpha', name: 'Demo Alpha' }, providerAccountId: 'pac_demo_alpha',
      providerPayoutId: status === 'successful' ? 'demo_alpha_payout_sample' : undefined, rule: 'default',
    },
    feeAmount: 25n, feeCurrency: 'EUR',
    failure: status === 'failed' ? { code: 'hard_decline', category: 'hard', message: 'The provider rejected the payout.' } : undefined,
    createdAt: timestampFromDate(at),
  }));
}

function sampleSettlement(at: Date): SettlementJson {
  return settlementJson(create(SettlementSchema, {
    id: newId('evt', at).replace(/^evt_/, 'stl_'), providerName: 'Demo Alpha', settlementEntity: 'Demo Alpha Ltd',
    settlementReference: 'demo_alpha_settlement_sample', currency: 'EUR', grossAmount: 10000n, feeAmount: 390n,
    netAmount: 9610n, transactionCount: 10, periodStart: timestampFromDate(new Date(at.getTime() - 24 * 3600 * 1000)),
    periodEnd: timestampFromDate(at), status: 'settled', settledAt: timestampFromDate(at),
  }));
}

function sampleDispute(type: string, at: Date): DisputeJson {
  // The status each event has in the sandbox's flow: opened, then evidence submitted, then won.
  const status = { 'dispute.created': 'needs_response', 'dispute.updated': 'under_review', 'dispute.closed': 'won' }[type] ?? 'needs_response';
  const ts = timestampFromDate(at);
  return disputeJson(create(DisputeSchema, {
    id: newId('dp', at), paymentId: newId('pay', at), amount: 2500n, currency: 'EUR', feeAmount: 1500n, reason: 'fraudulent',
    providerReason: '10.4', stage: 'chargeback', status, fundsWithdrawn: status !== 'won',
    evidenceDueBy: timestampFromDate(new Date(at.getTime() + 7 * 24 * 3600 * 1000)),
    providerId: 'prv_demo_alpha', providerCode: 'demo_alpha', providerName: 'Demo Alpha', providerAccountId: 'pac_demo_alpha',
    providerDisputeId: 'demo_alpha_dispute_sample',
    evidence: status === 'needs_response' ? {} : { shippingCarrier: 'DHL', shippingTrackingNumber: 'JD0000000000' },
    evidenceSubmittedAt: status === 'needs_response' ? undefined : ts,
    createdAt: ts, updatedAt: ts,
  }));
}

export function sampleObject(type: string, mode: string, at: Date): PaymentJson | RefundJson | PayoutJson | SettlementJson | DisputeJson {
  if (type.startsWith('refund.')) return sampleRefund(type, at);
  if (type.startsWith('dispute.')) return sampleDispute(type, at);
  if (type.startsWith('payout.')) return samplePayout(type, mode, at);
  if (type.startsWith('settlement.')) return sampleSettlement(at);
  return samplePayment(type, mode, at);
}

export function testEvent(scope: Scope, type: string, at: Date): EventEnvelope {
  return {
    id: newId('evt', at), type, mode: scope.mode, merchant_id: scope.merchantId, project_id: scope.projectId,
    created_at: at.toISOString(), data: { object: sampleObject(type, scope.mode, at) },
  };
}
