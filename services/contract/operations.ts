// The 22 operations of the contract's Summary table, and those added since (the 3 on a stored method's
// credentials; the events API). Routes, validation, serialisation and the OpenAPI document
// are all made from this table.
import { idParams, credentialParams, AddCredentialBody, CancelBody, CaptureBody, CreatePaymentBody, CreatePaymentMethodBody, CreatePayoutBody,
  DisputeDocumentBody, DisputeEvidenceBody, DisputeListQuery, DISPUTE_DOCUMENT_BODY_LIMIT, EventListQuery, PaymentListQuery, PayoutListQuery, RefundBody, SettlementListQuery, TransactionListQuery, WebhookTestBody,
} from './requests.js';
import {
  BalanceList, Dispute, DisputeDocument, DisputeList, Event, EventList, Identity, Payment, PaymentList, PaymentMethod, PaymentMethodCredential, PaymentMethodCredentialList, Payout, PayoutList, Refund, RefundList, ScenarioList,
  SettlementList, SettlementWithItems, Timeline, TransactionList, WebhookTestResult,
} from './resources.js';
import type { Schema } from './components.js';

export type OperationId =
  | 'createPayment' | 'listPayments' | 'getPayment' | 'getPaymentTimeline' | 'capturePayment' | 'cancelPayment'
  | 'refundPayment' | 'listPaymentRefunds' | 'getRefund' | 'createPayout' | 'listPayouts' | 'getPayout'
  | 'cancelPayout' | 'listTransactions' | 'getBalances' | 'listSettlements' | 'getSettlement'
  | 'createPaymentMethod' | 'getPaymentMethod' | 'sendTestWebhook' | 'listTestScenarios' | 'getMe'
  | 'addPaymentMethodCredential' | 'listPaymentMethodCredentials' | 'removePaymentMethodCredential'
  | 'listEvents' | 'getEvent' | 'listDisputes' | 'getDispute' | 'acceptDispute' | 'submitDisputeEvidence'
  | 'uploadDisputeDocument';

export interface Operation {
  id: OperationId;
  method: 'GET' | 'POST' | 'DELETE';
  /** Fastify style: `/v1/payments/:id`. */
  path: string;
  summary: string;
  tag: string;
  /** Marked (idem) in the contract: honours Idempotency-Key. */
  idempotent?: boolean;
  body?: Schema;
  /** A larger body limit than the gateway's MAX_BODY_BYTES, for this operation only (a document upload). */
  bodyLimit?: number;
  /** The body may be left out entirely. */
  bodyOptional?: boolean;
  query?: Schema;
  params?: Schema;
  success: { status: number; schema: Schema };
  /** Error statuses this operation can answer besides the ones every /v1 operation can. */
  errors: number[];
}

/** Short names for the reference's navigation (OpenAPI `summary`); `summary` above is its description. */
export const OPERATION_NAMES: Record<OperationId, string> = {
  createPayment: 'Create a payment', listPayments: 'List payments', getPayment: 'Retrieve a payment',
  getPaymentTimeline: 'Payment timeline', capturePayment: 'Capture a payment', cancelPayment: 'Cancel a payment',
  refundPayment: 'Refund a payment', listPaymentRefunds: 'List a payment\'s refunds', getRefund: 'Retrieve a refund',
  createPayout: 'Create a payout', listPayouts: 'List payouts', getPayout: 'Retrieve a payout', cancelPayout: 'Cancel a payout',
  listTransactions: 'List transactions', getBalances: 'Retrieve balances', listSettlements: 'List settlements',
  getSettlement: 'Retrieve a settlement', createPaymentMethod: 'Store a payment method',
  getPaymentMethod: 'Retrieve a payment method', sendTestWebhook: 'Send a test event', listTestScenarios: 'List test scenarios',
  getMe: 'Who am I', addPaymentMethodCredential: 'Add a credential', listPaymentMethodCredentials: 'List credentials',
  removePaymentMethodCredential: 'Remove a credential', listEvents: 'List events', getEvent: 'Retrieve an event',
  listDisputes: 'List disputes', getDispute: 'Retrieve a dispute', acceptDispute: 'Accept a dispute',
  submitDisputeEvidence: 'Stage or submit evidence', uploadDisputeDocument: 'Upload an evidence document',
};

const op = (o: Operation) => o;

export const OPERATIONS: Operation[] = [
  op({ id: 'createPayment', method: 'POST', path: '/v1/payments', tag: 'Payments', idempotent: true,
    summary: 'Create a payment: risk, routing and provider attempts run inside the request.',
    body: CreatePaymentBody, success: { status: 201, schema: Payment }, errors: [400, 409, 422] }),
  op({ id: 'listPayments', method: 'GET', path: '/v1/payments', tag: 'Payments', summary: 'List payments, newest first.',
    query: PaymentListQuery, success: { status: 200, schema: PaymentList }, errors: [400, 422] }),
  op({ id: 'getPayment', method: 'GET', path: '/v1/payments/:id', tag: 'Payments', summary: 'Retrieve a payment.',
    params: idParams, success: { status: 200, schema: Payment }, errors: [404] }),
  op({ id: 'getPaymentTimeline', method: 'GET', path: '/v1/payments/:id/timeline', tag: 'Payments',
    summary: 'The narrated history of a payment: risk, routing, attempts, failover and webhooks.',
    params: idParams, success: { status: 200, schema: Timeline }, errors: [404] }),
  op({ id: 'capturePayment', method: 'POST', path: '/v1/payments/:id/capture', tag: 'Payments', idempotent: true,
    summary: 'Capture an authorized payment, fully or partly.', params: idParams, body: CaptureBody, bodyOptional: true,
    success: { status: 200, schema: Payment }, errors: [404, 409, 422] }),
  op({ id: 'cancelPayment', method: 'POST', path: '/v1/payments/:id/cancel', tag: 'Payments', idempotent: true,
    summary: 'Cancel a payment not yet sent to a provider, or an authorization.', params: idParams, body: CancelBody,
    bodyOptional: true, success: { status: 200, schema: Payment }, errors: [404, 409, 422] }),
  op({ id: 'refundPayment', method: 'POST', path: '/v1/payments/:id/refund', tag: 'Refunds', idempotent: true,
    summary: 'Refund a payment, fully or partly.', params: idParams, body: RefundBody, bodyOptional: true,
    success: { status: 201, schema: Refund }, errors: [400, 404, 409, 422] }),
  op({ id: 'listPaymentRefunds', method: 'GET', path: '/v1/payments/:id/refunds', tag: 'Refunds',
    summary: 'The refunds of a payment.', params: idParams, success: { status: 200, schema: RefundList }, errors: [404] }),
  op({ id: 'getRefund', method: 'GET', path: '/v1/refunds/:id', tag: 'Refunds', summary: 'Retrieve a refund.',
    params: idParams, success: { status: 200, schema: Refund }, errors: [404] }),
  op({ id: 'listDisputes', method: 'GET', path: '/v1/disputes', tag: 'Disputes',
    summary: 'Disputes and chargebacks of this key\'s payments, newest first; filter by status (comma-separated), payment_id and '
      + 'creation time (from, to).',
    query: DisputeListQuery, success: { status: 200, schema: DisputeList }, errors: [400, 422] }),
  op({ id: 'getDispute', method: 'GET', path: '/v1/disputes/:id', tag: 'Disputes', summary: 'Retrieve a dispute.',
    params: idParams, success: { status: 200, schema: Dispute }, errors: [404] }),
  op({ id: 'acceptDispute', method: 'POST', path: '/v1/disputes/:id/accept', tag: 'Disputes', idempotent: true,
    summary: 'Accept a dispute that needs a response: it closes as accepted and the withdrawn funds stay with the cardholder. '
      + '409 invalid_state_transition in another status; 422 dispute_action_unsupported where the provider takes no answer through its API.',
    params: idParams, success: { status: 200, schema: Dispute }, errors: [404, 409, 422] }),
  op({ id: 'submitDisputeEvidence', method: 'POST', path: '/v1/disputes/:id/evidence', tag: 'Disputes', idempotent: true,
    summary: 'Stage evidence (fields given replace those staged) and, with submit: true, send everything staged to the provider '
      + '(the dispute moves to under_review). Only while the dispute needs a response (409 otherwise).',
    params: idParams, body: DisputeEvidenceBody, success: { status: 200, schema: Dispute }, errors: [404, 409, 422] }),
  op({ id: 'uploadDisputeDocument', method: 'POST', path: '/v1/disputes/:id/documents', tag: 'Disputes', idempotent: true,
    summary: 'Upload an evidence document (PDF, PNG or JPEG, at most 4 MiB decoded) as base64 in JSON; this operation alone '
      + `takes bodies up to ${DISPUTE_DOCUMENT_BODY_LIMIT} bytes. Name its id in the evidence's documents.`,
    params: idParams, body: DisputeDocumentBody, bodyLimit: DISPUTE_DOCUMENT_BODY_LIMIT,
    success: { status: 201, schema: DisputeDocument }, errors: [404, 409, 413, 422] }),
  op({ id: 'createPayout', method: 'POST', path: '/v1/payouts', tag: 'Payouts', idempotent: true,
    summary: 'Send a payout to a tokenised destination.', body: CreatePayoutBody,
    success: { status: 201, schema: Payout }, errors: [400, 409, 422] }),
  op({ id: 'listPayouts', method: 'GET', path: '/v1/payouts', tag: 'Payouts', summary: 'List payouts, newest first.',
    query: PayoutListQuery, success: { status: 200, schema: PayoutList }, errors: [400, 422] }),
  op({ id: 'getPayout', method: 'GET', path: '/v1/payouts/:id', tag: 'Payouts', summary: 'Retrieve a payout.',
    params: idParams, success: { status: 200, schema: Payout }, errors: [404] }),
  op({ id: 'cancelPayout', method: 'POST', path: '/v1/payouts/:id/cancel', tag: 'Payouts',
    summary: 'Cancel a payout that can still be cancelled.', params: idParams,
    success: { status: 200, schema: Payout }, errors: [404, 409] }),
  op({ id: 'listTransactions', method: 'GET', path: '/v1/transactions', tag: 'Ledger',
    summary: 'Every money movement, failed ones included, newest first.', query: TransactionListQuery,
    success: { status: 200, schema: TransactionList }, errors: [400, 422] }),
  op({ id: 'getBalances', method: 'GET', path: '/v1/balances', tag: 'Ledger',
    summary: 'Balance figures per currency, derived from transactions and provider settlements.',
    success: { status: 200, schema: BalanceList }, errors: [] }),
  op({ id: 'listSettlements', method: 'GET', path: '/v1/settlements', tag: 'Ledger',
    summary: 'Provider-reported settlements.', query: SettlementListQuery,
    success: { status: 200, schema: SettlementList }, errors: [422] }),
  op({ id: 'getSettlement', method: 'GET', path: '/v1/settlements/:id', tag: 'Ledger',
    summary: 'Retrieve a settlement with its items.', params: idParams,
    success: { status: 200, schema: SettlementWithItems }, errors: [404] }),
  op({ id: 'createPaymentMethod', method: 'POST', path: '/v1/payment-methods', tag: 'Payment methods',
    summary: 'Store a provider-tokenised payment method.', body: CreatePaymentMethodBody,
    success: { status: 201, schema: PaymentMethod }, errors: [422] }),
  op({ id: 'getPaymentMethod', method: 'GET', path: '/v1/payment-methods/:id', tag: 'Payment methods',
    summary: 'Retrieve a stored payment method.', params: idParams,
    success: { status: 200, schema: PaymentMethod }, errors: [404] }),
  op({ id: 'addPaymentMethodCredential', method: 'POST', path: '/v1/payment-methods/:id/credentials', tag: 'Payment methods',
    summary: 'Add a credential to a stored payment method: another provider\'s token for the same card, or its vault reference (at most one).',
    params: idParams, body: AddCredentialBody, success: { status: 201, schema: PaymentMethodCredential }, errors: [404, 409, 422] }),
  op({ id: 'listPaymentMethodCredentials', method: 'GET', path: '/v1/payment-methods/:id/credentials', tag: 'Payment methods',
    summary: 'The credentials of a stored payment method, oldest first; tokens are never returned.', params: idParams,
    success: { status: 200, schema: PaymentMethodCredentialList }, errors: [404] }),
  op({ id: 'removePaymentMethodCredential', method: 'DELETE', path: '/v1/payment-methods/:id/credentials/:credential',
    tag: 'Payment methods', summary: 'Remove a credential; a method keeps at least one (409 for its last).',
    params: credentialParams, success: { status: 200, schema: PaymentMethodCredential }, errors: [404, 409] }),
  op({ id: 'sendTestWebhook', method: 'POST', path: '/v1/webhooks/test', tag: 'Webhooks',
    summary: 'Emit a real, signed test event to the endpoints registered for this key.', body: WebhookTestBody,
    bodyOptional: true, success: { status: 200, schema: WebhookTestResult }, errors: [422] }),
  op({ id: 'listEvents', method: 'GET', path: '/v1/events', tag: 'Webhooks',
    summary: 'Every event emitted for this key\'s project and mode in the last 30 days, newest first, each exactly as ' +
      'its webhooks deliver it; filter by type and by emission time (from, to).',
    query: EventListQuery, success: { status: 200, schema: EventList }, errors: [400, 422] }),
  op({ id: 'getEvent', method: 'GET', path: '/v1/events/:id', tag: 'Webhooks',
    summary: 'Retrieve an event, exactly as its webhooks deliver it.', params: idParams,
    success: { status: 200, schema: Event }, errors: [404] }),
  op({ id: 'listTestScenarios', method: 'GET', path: '/v1/test/scenarios', tag: 'Sandbox',
    summary: 'The sandbox scenarios that force payment outcomes (test keys only).',
    success: { status: 200, schema: ScenarioList }, errors: [] }),
  op({ id: 'getMe', method: 'GET', path: '/v1/me', tag: 'Identity',
    summary: 'The merchant, project, mode and key behind the calling API key.',
    success: { status: 200, schema: Identity }, errors: [] }),
];

/** Statuses every authenticated /v1 operation can answer. */
export const COMMON_ERRORS = [401, 403, 429, 500, 501, 503];
