import { disputeSummaryJson } from './dispute.js';
import type { Payment } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import {
  ATTEMPT_OUTCOMES, ATTEMPT_STATUSES, CAPTURE_METHODS, MODES, NEXT_ACTION_TYPES, PAYMENT_METHOD_TYPES, PAYMENT_STATUSES,
} from './enums.js';
import { asOneOf, failureJson, iso, isoOrNull, metadataJson, orNull } from './json-values.js';
import { minorToJson } from './money.js';
import type { AttemptJson, PaymentJson } from './resources.js';

// The contract's JSON shape of a payment, field by field and in the contract's order. The REST
// API and webhook events both serialise with this, so an event's data.object matches the API; its
// return type is the Payment schema's, so a field missing or of another type does not compile.

function attemptJson(a: Payment['attempts'][number]): AttemptJson {
  return {
    id: a.id,
    attempt_number: a.attemptNumber,
    status: asOneOf(ATTEMPT_STATUSES, a.status),
    outcome: a.outcome === undefined ? null : asOneOf(ATTEMPT_OUTCOMES, a.outcome),
    provider_id: a.providerId,
    provider_name: orNull(a.providerName),
    provider_account_id: a.providerAccountId,
    provider_payment_id: orNull(a.providerPaymentId),
    provider_code: orNull(a.providerCode),
    provider_message: orNull(a.providerMessage),
    failure: failureJson(a.failure),
    fee_amount: minorToJson(a.feeAmount),
    latency_ms: orNull(a.latencyMs),
    created_at: iso(a.createdAt),
    path: a.vault ? 'forwarded' : 'direct',
    vault: orNull(a.vault),
  };
}

export function paymentJson(p: Payment): PaymentJson {
  return {
    id: p.id,
    object: 'payment',
    mode: asOneOf(MODES, p.mode),
    status: asOneOf(PAYMENT_STATUSES, p.status),
    amount: minorToJson(p.amount),
    currency: p.currency,
    captured_amount: minorToJson(p.capturedAmount),
    refunded_amount: minorToJson(p.refundedAmount),
    capture_method: asOneOf(CAPTURE_METHODS, p.captureMethod),
    payment_method: { type: asOneOf(PAYMENT_METHOD_TYPES, p.paymentMethodType), id: orNull(p.paymentMethodId) },
    country: orNull(p.country),
    description: orNull(p.description),
    reference: orNull(p.reference),
    customer: orNull(p.customer),
    metadata: metadataJson(p.metadata),
    route: {
      provider: p.route?.provider
        ? { id: p.route.provider.id, code: p.route.provider.code, name: p.route.provider.name }
        : null,
      provider_account_id: orNull(p.route?.providerAccountId),
      provider_payment_id: orNull(p.route?.providerPaymentId),
      attempts: p.route?.attempts ?? 0,
      routing_decision_id: orNull(p.route?.routingDecisionId),
      rule: orNull(p.route?.rule),
      skipped: (p.route?.skipped ?? []).map((k) => ({
        provider_code: k.providerCode, provider_name: k.providerName, provider_account_id: k.providerAccountId, reason: k.reason,
      })),
    },
    risk: { decision_id: orNull(p.risk?.decisionId), score: orNull(p.risk?.score) },
    failure: failureJson(p.failure),
    next_action: p.nextAction
      ? {
          type: asOneOf(NEXT_ACTION_TYPES, p.nextAction.type),
          url: p.nextAction.url,
          qrPayload: p.nextAction.qrPayload,
          expiresAt: iso(p.nextAction.expiresAt),
        }
      : null,
    fee: { amount: minorToJson(p.feeAmount), currency: p.feeCurrency },
    processing_time_ms: orNull(p.processingTimeMs),
    attempts: p.attempts.map(attemptJson),
    disputes: p.disputes.map(disputeSummaryJson),
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
    processed_at: isoOrNull(p.processedAt),
  };
}
