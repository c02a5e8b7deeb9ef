import { create, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { PaymentSchema, type Payment } from '../../../proto/gen/svc/payments/v1/payments_pb.js';
import type { PaymentRecord } from './model.js';

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

export function paymentToProto(p: PaymentRecord): Payment {
  return create(PaymentSchema, {
    id: p.id,
    mode: p.mode,
    status: p.status,
    amount: p.amount,
    currency: p.currency,
    capturedAmount: p.capturedAmount,
    refundedAmount: p.refundedAmount,
    captureMethod: p.captureMethod,
    paymentMethodType: p.paymentMethodType,
    paymentMethodId: opt(p.paymentMethodId),
    country: opt(p.country),
    description: opt(p.description),
    reference: opt(p.reference),
    customer: opt(p.customer) as JsonObject | undefined,
    metadata: p.metadata as JsonObject,
    route: {
      provider: p.providerId ? { id: p.providerId, code: p.providerCode ?? '', name: p.providerName ?? '' } : undefined,
      providerAccountId: opt(p.providerAccountId),
      providerPaymentId: opt(p.providerPaymentId),
      attempts: p.attemptCount,
      routingDecisionId: opt(p.routingDecisionId),
      rule: opt(p.routingRule),
      skipped: (p.routeSkipped ?? []).map((k) => ({
        providerCode: k.provider_code, providerName: k.provider_name, providerAccountId: k.provider_account_id, reason: k.reason,
      })),
    },
    risk: { decisionId: opt(p.riskDecisionId), score: opt(p.riskScore) },
    failure: opt(p.failure),
    nextAction: p.nextAction
      ? { ...p.nextAction, expiresAt: timestampFromDate(new Date(p.nextAction.expiresAt)) }
      : undefined,
    feeAmount: p.feeAmount,
    feeCurrency: p.currency,
    processingTimeMs: opt(p.processingTimeMs),
    attempts: p.attempts.map((a) => ({
      id: a.id,
      attemptNumber: a.attemptNumber,
      status: a.status,
      outcome: opt(a.outcome),
      providerId: a.providerId,
      providerName: opt(a.providerName),
      providerAccountId: a.providerAccountId,
      providerPaymentId: opt(a.providerPaymentId),
      providerCode: opt(a.providerResponseCode),
      providerMessage: opt(a.providerMessage),
      failure: opt(a.failure),
      feeAmount: a.feeAmount,
      latencyMs: opt(a.latencyMs),
      createdAt: timestampFromDate(a.createdAt),
      vault: opt(a.vault),
    })),
    createdAt: timestampFromDate(p.createdAt),
    updatedAt: timestampFromDate(p.updatedAt),
    processedAt: p.processedAt ? timestampFromDate(p.processedAt) : undefined,
    disputes: (p.disputes ?? []).map((d) => ({
      id: d.id, amount: d.amount, currency: d.currency, reason: d.reason, stage: d.stage, status: d.status,
      fundsWithdrawn: d.fundsWithdrawn, evidenceDueBy: d.evidenceDueBy ? timestampFromDate(d.evidenceDueBy) : undefined,
      createdAt: timestampFromDate(d.createdAt),
    })),
  });
}
