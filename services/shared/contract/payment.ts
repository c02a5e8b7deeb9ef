import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Failure } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { Payment } from '../../../proto/gen/svc/payments/v1/payments_pb.js';

// The contract's JSON shape of a payment, field by field and in the contract's order. The REST
// API and webhook events both serialise with this, so an event's data.object matches the API.

const iso = (t: Timestamp | undefined): string | null => (t ? timestampDate(t).toISOString() : null);
const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

/** Amounts are bigint in proto; the REST layer never admits any above 2^53-1. */
const int = (v: bigint): number => Number(v);

function failureJson(f: Failure | undefined) {
  return f ? { code: f.code, category: f.category, message: f.message } : null;
}

export function paymentJson(p: Payment): Record<string, unknown> {
  return {
    id: p.id,
    object: 'payment',
    mode: p.mode,
    status: p.status,
    amount: int(p.amount),
    currency: p.currency,
    captured_amount: int(p.capturedAmount),
    refunded_amount: int(p.refundedAmount),
    capture_method: p.captureMethod,
    payment_method: { type: p.paymentMethodType, id: orNull(p.paymentMethodId) },
    country: orNull(p.country),
    description: orNull(p.description),
    reference: orNull(p.reference),
    customer: orNull(p.customer),
    metadata: p.metadata ?? {},
    route: {
      provider: p.route?.provider
        ? { id: p.route.provider.id, code: p.route.provider.code, name: p.route.provider.name }
        : null,
      provider_account_id: orNull(p.route?.providerAccountId),
      provider_payment_id: orNull(p.route?.providerPaymentId),
      attempts: p.route?.attempts ?? 0,
      routing_decision_id: orNull(p.route?.routingDecisionId),
      rule: orNull(p.route?.rule),
    },
    risk: { decision_id: orNull(p.risk?.decisionId), score: orNull(p.risk?.score) },
    failure: failureJson(p.failure),
    next_action: p.nextAction
      ? {
          type: p.nextAction.type,
          url: p.nextAction.url,
          qrPayload: p.nextAction.qrPayload,
          expiresAt: iso(p.nextAction.expiresAt),
        }
      : null,
    fee: { amount: int(p.feeAmount), currency: p.feeCurrency },
    processing_time_ms: orNull(p.processingTimeMs),
    attempts: p.attempts.map((a) => ({
      id: a.id,
      attempt_number: a.attemptNumber,
      status: a.status,
      outcome: orNull(a.outcome),
      provider_id: a.providerId,
      provider_name: orNull(a.providerName),
      provider_account_id: a.providerAccountId,
      provider_payment_id: orNull(a.providerPaymentId),
      provider_code: orNull(a.providerCode),
      provider_message: orNull(a.providerMessage),
      failure: failureJson(a.failure),
      fee_amount: int(a.feeAmount),
      latency_ms: orNull(a.latencyMs),
      created_at: iso(a.createdAt),
    })),
    created_at: iso(p.createdAt),
    updated_at: iso(p.updatedAt),
    processed_at: iso(p.processedAt),
  };
}
