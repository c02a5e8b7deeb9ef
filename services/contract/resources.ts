// Response schemas of the contract's resources, field by field.
import {
  anyObject, anyValue, arrayOf, bool, component, dateTime, enumOf, int, literal, nullable, object, orNull, recordOf, str,
  type Static,
} from './components.js';
import type { TSchema } from '@sinclair/typebox';
import {
  ATTEMPT_OUTCOMES, ATTEMPT_PATHS, ATTEMPT_STATUSES, CAPTURE_METHODS, DESTINATION_TYPES, FAILURE_CATEGORIES, MODES, NEXT_ACTION_TYPES,
  CREDENTIAL_TYPES, DISPUTE_REASONS, DISPUTE_STAGES, DISPUTE_STATUSES, PAYMENT_METHOD_TYPES, PAYMENT_STATUSES, PAYOUT_STATUSES,
  REFUND_STATUSES, SETTLEMENT_STATUSES,
} from './enums.js';
import { DECLINE_REASONS } from './decline-reasons.js';

const nullStr = nullable(str);
const nullInt = nullable(int);

export const Failure = component('Failure', object({
  code: str, category: enumOf(FAILURE_CATEGORIES), message: str,
  // Additive: absent from failures stored before it, so optional in the shape; the serialisers always write it.
  decline_reason: Object.assign(orNull(enumOf(DECLINE_REASONS)), {
    description: 'Why the provider declined, normalised across providers (as a decline code); null for a failure that is no decline (a technical fault, a time-out).',
  }),
}, ['code', 'category', 'message']));
const nullFailure = orNull(Failure);

/** A dispute as the payment lists it. */
export const DisputeSummary = component('DisputeSummary', object({
  id: str, amount: int, currency: str, reason: enumOf(DISPUTE_REASONS), stage: enumOf(DISPUTE_STAGES),
  status: enumOf(DISPUTE_STATUSES), funds_withdrawn: bool, evidence_due_by: nullable(dateTime), created_at: dateTime,
}));


export const Attempt = component('Attempt', object({
  id: str,
  attempt_number: int,
  status: enumOf(ATTEMPT_STATUSES),
  outcome: orNull(enumOf(ATTEMPT_OUTCOMES)),
  provider_id: str,
  provider_name: nullStr,
  provider_account_id: str,
  provider_payment_id: nullStr,
  provider_code: nullStr,
  provider_message: nullStr,
  failure: nullFailure,
  fee_amount: int,
  latency_ms: nullInt,
  created_at: dateTime,
  // How the card reached the provider: its token sent directly, or forwarded by `vault`.
  path: enumOf(ATTEMPT_PATHS),
  vault: nullStr,
}));

export const Payment = component('Payment', object({
  id: str,
  object: literal('payment'),
  mode: enumOf(MODES),
  status: enumOf(PAYMENT_STATUSES),
  amount: int,
  currency: str,
  captured_amount: int,
  refunded_amount: int,
  capture_method: enumOf(CAPTURE_METHODS),
  payment_method: object({ type: enumOf(PAYMENT_METHOD_TYPES), id: nullStr }),
  country: nullStr,
  description: nullStr,
  reference: nullStr,
  customer: orNull(anyObject),
  metadata: recordOf(str), // string values only, as requests' Metadata
  route: object({
    provider: orNull(object({ id: str, code: str, name: str })),
    provider_account_id: nullStr,
    provider_payment_id: nullStr,
    attempts: int,
    routing_decision_id: nullStr,
    rule: nullStr,
    // Accounts the payment's credential does not reach: never tried, and why ("no credential for Adyen").
    skipped: arrayOf(object({ provider_code: str, provider_name: str, provider_account_id: str, reason: str })),
  }),
  risk: object({ decision_id: nullStr, score: nullInt }),
  failure: nullFailure,
  next_action: orNull(object({ type: enumOf(NEXT_ACTION_TYPES), url: str, qrPayload: str, expiresAt: str })),
  fee: object({ amount: int, currency: str }),
  processing_time_ms: nullInt,
  attempts: arrayOf(Attempt),
  // Its disputes, oldest first (GET /v1/disputes/{id} has each in full).
  disputes: arrayOf(DisputeSummary),
  created_at: dateTime,
  updated_at: dateTime,
  processed_at: nullable(dateTime),
}));

export const TimelineEvent = component('TimelineEvent', object({
  id: str, type: str, title: str, description: nullStr, attempt_id: nullStr, data: anyObject, created_at: dateTime,
}));

export const Refund = component('Refund', object({
  id: str,
  object: literal('refund'),
  payment_id: str,
  amount: int,
  currency: str,
  status: enumOf(REFUND_STATUSES),
  reason: nullStr,
  provider_refund_id: nullStr,
  failure: nullFailure,
  created_at: dateTime,
}));

export const DisputeEvidence = component('DisputeEvidence', object({
  product_description: nullStr,
  customer_communication: nullStr,
  shipping_carrier: nullStr,
  shipping_tracking_number: nullStr,
  refund_policy: nullStr,
  uncategorized_text: nullStr,
  // Ids of documents uploaded with POST /v1/disputes/{id}/documents.
  documents: arrayOf(str),
}));

export const DisputeDocument = component('DisputeDocument', object({
  id: str, object: literal('dispute_document'), filename: str, type: str, size: int, created_at: dateTime,
}));

export const Dispute = component('Dispute', object({
  id: str,
  object: literal('dispute'),
  payment_id: str,
  attempt_id: nullStr,
  amount: int,
  currency: str,
  // The provider's dispute fee, taken with each withdrawal of the funds.
  fee_amount: int,
  reason: enumOf(DISPUTE_REASONS),
  provider_reason: nullStr,
  stage: enumOf(DISPUTE_STAGES),
  status: enumOf(DISPUTE_STATUSES),
  evidence_due_by: nullable(dateTime),
  funds_withdrawn: bool,
  provider: orNull(object({ id: nullStr, code: str, name: nullStr })),
  provider_account_id: nullStr,
  provider_dispute_id: str,
  evidence: DisputeEvidence,
  evidence_submitted_at: nullable(dateTime),
  documents: arrayOf(DisputeDocument),
  created_at: dateTime,
  updated_at: dateTime,
}));

export const Payout = component('Payout', object({
  id: str,
  object: literal('payout'),
  mode: enumOf(MODES),
  status: enumOf(PAYOUT_STATUSES),
  amount: int,
  currency: str,
  // The destination as sent, without the provider token (docs/ledger.md, "Payouts"). The
  // payouts part always sends every field; the required lists are what a receiver may rely on.
  destination: object({
    type: enumOf(DESTINATION_TYPES), display: str, holder_name: nullStr, country: nullStr,
  }, ['type', 'display']),
  route: object({
    provider: orNull(object({ id: str, code: str, name: str })),
    provider_account_id: nullStr,
    provider_payout_id: nullStr,
    rule: nullStr,
    // The end of the cancellation window: until then the payout stays `created` and can be cancelled.
    scheduled_for: orNull(dateTime),
  }, ['provider', 'provider_account_id']),
  fee: object({ amount: int, currency: str }),
  failure: nullFailure,
  created_at: dateTime,
}));

export const Transaction = component('Transaction', object({
  id: str,
  type: str,
  status: str,
  entity_type: str,
  entity_id: str,
  payment_id: nullStr,
  amount: int,
  currency: str,
  fee_amount: int,
  net_amount: int,
  provider_name: nullStr,
  provider_reference: nullStr,
  payment_method: nullStr,
  country: nullStr,
  processing_time_ms: nullInt,
  failure_code: nullStr,
  settlement_id: nullStr,
  occurred_at: dateTime,
}));

export const Balance = component('Balance', object({
  currency: str,
  processed_gross: int,
  fees: int,
  processed_net: int,
  settled_by_providers: int,
  awaiting_provider_settlement: int,
  payouts_sent: int,
  note: str,
}));

const settlementFields = {
  id: str,
  provider_name: nullStr,
  settlement_entity: nullStr,
  settlement_reference: nullStr,
  currency: str,
  gross_amount: int,
  fee_amount: int,
  net_amount: int,
  transaction_count: int,
  period_start: dateTime,
  period_end: dateTime,
  status: enumOf(SETTLEMENT_STATUSES),
  settled_at: nullable(dateTime),
};
export const Settlement = component('Settlement', object(settlementFields));
export const SettlementWithItems = component('SettlementWithItems', object({
  ...settlementFields, items: arrayOf(anyObject),
}));

export const PaymentMethod = component('PaymentMethod', object({
  id: str,
  object: literal('payment_method'),
  type: enumOf(PAYMENT_METHOD_TYPES),
  customer_id: nullStr,
  display: recordOf(str),
  status: str,
  created_at: dateTime,
}));

// A stored method's credential as listed: which provider or vault it is for, never the token.
export const PaymentMethodCredential = component('PaymentMethodCredential', object({
  id: str,
  object: literal('payment_method_credential'),
  payment_method_id: str,
  type: enumOf(CREDENTIAL_TYPES),
  provider_code: nullStr,
  provider_account_id: nullStr,
  vault: nullStr,
  created_at: dateTime,
}));
export const PaymentMethodCredentialList = component('PaymentMethodCredentialList', object({
  payment_method_id: str,
  data: arrayOf(PaymentMethodCredential),
}));

export const Identity = component('Identity', object({
  merchant: object({ id: str, name: str }),
  project: object({ id: str, name: str }),
  mode: enumOf(MODES),
  api_key: object({ id: str, prefix: str, name: str }),
}));

export const ErrorEnvelope = component('Error', object({
  error: object({ type: str, code: str, message: str, param: str, details: anyValue }, ['type', 'code', 'message']),
  request_id: str,
}));

/** `{data, has_more, next_cursor}` of a resource. */
export function page<S extends TSchema>(name: string, item: S) {
  return component(name, object({ data: arrayOf(item), has_more: bool, next_cursor: nullStr }));
}

export const PaymentList = page('PaymentList', Payment);
export const PayoutList = page('PayoutList', Payout);
export const TransactionList = page('TransactionList', Transaction);
export const Timeline = component('Timeline', object({ payment_id: str, data: arrayOf(TimelineEvent) }));
export const DisputeList = page('DisputeList', Dispute);
export const RefundList = component('RefundList', object({ data: arrayOf(Refund) }));
export const BalanceList = component('Balances', object({ custodian: literal(false), data: arrayOf(Balance) }));
export const SettlementList = component('SettlementList', object({ data: arrayOf(Settlement) }));
/** An event as its webhooks deliver it: the envelope of the contract's Events section, byte for byte. */
export const Event = component('Event', object({
  id: str, type: str, mode: enumOf(MODES), created_at: dateTime, data: object({ object: anyObject }),
}));
export const EventList = page('EventList', Event);
export const WebhookTestResult = component('WebhookTestResult', object({ event_id: str, deliveries: int }));
export const ScenarioList = component('ScenarioList', object({ data: arrayOf(object({ name: str, description: str })) }));

// The JSON of each resource as the REST API answers it and webhook events carry it: the
// serialisers return these and event consumers read them.
export type FailureJson = Static<typeof Failure>;
export type AttemptJson = Static<typeof Attempt>;
export type PaymentJson = Static<typeof Payment>;
export type RefundJson = Static<typeof Refund>;
export type DisputeJson = Static<typeof Dispute>;
export type DisputeDocumentJson = Static<typeof DisputeDocument>;
export type DisputeSummaryJson = Static<typeof DisputeSummary>;
export type PayoutJson = Static<typeof Payout>;
export type TransactionJson = Static<typeof Transaction>;
export type BalanceJson = Static<typeof Balance>;
export type BalancesJson = Static<typeof BalanceList>;
export type SettlementJson = Static<typeof Settlement>;
export type SettlementWithItemsJson = Static<typeof SettlementWithItems>;
export type PaymentMethodJson = Static<typeof PaymentMethod>;
export type PaymentMethodCredentialJson = Static<typeof PaymentMethodCredential>;
