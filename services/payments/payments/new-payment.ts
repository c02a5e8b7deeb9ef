import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { CreatePaymentRequest } from '../../../proto/gen/svc/payments/v1/payments_pb.js';
import type { PlanPaymentRequestSchema, PlanPaymentResponse } from '../../../proto/gen/svc/routing/v1/routing_pb.js';
import type { PaymentRecord } from './model.js';
import type { PaymentCredentials } from '../payment-methods/index.js';
import type { CardFacts } from '../../connectors/index.js';

/** What a create request becomes before anything is decided: the routing plan's input and the new payment. */

/** What routing and risk are asked about the payment. */
export function planRequest(
  scope: Scope, req: CreatePaymentRequest, paymentId: string, credentials: PaymentCredentials, card?: CardFacts,
): MessageInitShape<typeof PlanPaymentRequestSchema> {
  return {
    scope,
    // Which accounts the payment's credential reaches: routing tries no other.
    credential: credentials.reach && { reach: credentials.reach },
    // The card's segment, where the credential says it.
    cardNetwork: card?.network ?? undefined,
    binRange: card?.binRange ?? undefined,
    input: {
      paymentId,
      amount: req.amount,
      currency: req.currency,
      country: req.country,
      paymentMethodType: req.paymentMethod!.type,
      customerKey: req.customer?.id ?? req.customer?.externalId ?? req.customer?.email,
      customerCountry: req.customer?.country,
      deviceIp: req.device?.ip,
      deviceFingerprint: req.device?.fingerprint,
    },
  };
}

/** The payment as created, status `created`, with its plan's decisions and no attempt yet. */
export function newPayment(
  scope: Scope, req: CreatePaymentRequest, id: string, plan: PlanPaymentResponse, createdAt: Date,
  merchantInitiated?: { networkTransactionId: string },
): PaymentRecord {
  // Only the fields the merchant sent: proto messages also carry $typeName and unset fields.
  const customer = req.customer
    ? Object.fromEntries(Object.entries(req.customer).filter(([k, v]) => !k.startsWith('$') && v !== undefined))
    : null;
  return {
    id,
    merchantId: scope.merchantId,
    projectId: scope.projectId,
    mode: scope.mode,
    status: 'created',
    amount: req.amount,
    currency: req.currency,
    capturedAmount: 0n,
    refundedAmount: 0n,
    captureMethod: req.captureMethod || 'automatic',
    paymentMethodType: req.paymentMethod!.type,
    paymentMethodId: req.paymentMethod!.id ?? null,
    country: req.country ?? null,
    description: req.description ?? null,
    reference: req.reference ?? null,
    customer,
    metadata: req.metadata ?? {},
    returnUrl: req.returnUrl ?? null,
    testScenario: req.testScenario ?? null,
    mitNetworkTransactionId: merchantInitiated?.networkTransactionId ?? null,
    providerId: null,
    providerCode: null,
    providerName: null,
    providerAccountId: null,
    providerPaymentId: null,
    attemptCount: 0,
    routingDecisionId: plan.routing?.decisionId ?? null,
    routingRule: plan.routing?.rule ?? null,
    routeSkipped: (plan.routing?.skipped ?? []).map((k) => ({
      provider_code: k.providerCode, provider_name: k.providerName, provider_account_id: k.providerAccountId, reason: k.reason,
    })),
    riskDecisionId: plan.risk?.decisionId ?? null,
    riskScore: plan.risk?.score ?? null,
    failure: null,
    nextAction: null,
    feeAmount: 0n,
    processingTimeMs: null,
    createdAt,
    updatedAt: createdAt,
    processedAt: null,
    attempts: [],
  };
}
