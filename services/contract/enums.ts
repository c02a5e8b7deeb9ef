// The contract's enumerations, each written once. The gateway's schemas, the parts' own checks of
// internal callers and the typed JSON shapes all read these lists, so adding a value is one edit.

/** The union of a list's values: `ValueOf<typeof MODES>` is `'test' | 'live'`. */
export type ValueOf<T extends readonly string[]> = T[number];

/** Whether a string is one of the list's values (narrowed to the union). */
export function isOneOf<const T extends readonly string[]>(values: T, value: unknown): value is T[number] {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

export const MODES = ['test', 'live'] as const;
export type Mode = ValueOf<typeof MODES>;

export const PAYMENT_METHOD_TYPES = ['card', 'bank_transfer', 'qr', 'open_banking', 'wallet', 'instant', 'local'] as const;
export type PaymentMethodType = ValueOf<typeof PAYMENT_METHOD_TYPES>;

export const PAYMENT_STATUSES = [
  'created', 'pending', 'processing', 'authorized', 'captured', 'successful', 'failed', 'cancelled', 'refunded',
  'partially_refunded',
] as const;
export type PaymentStatus = ValueOf<typeof PAYMENT_STATUSES>;

export const CAPTURE_METHODS = ['automatic', 'manual'] as const;
export type CaptureMethod = ValueOf<typeof CAPTURE_METHODS>;

export const ATTEMPT_STATUSES = ['created', 'processing', 'unknown', 'authorized', 'succeeded', 'failed', 'cancelled'] as const;
export type AttemptStatus = ValueOf<typeof ATTEMPT_STATUSES>;

export const ATTEMPT_OUTCOMES = [
  'success', 'requires_action', 'soft_decline', 'hard_decline', 'technical_error', 'timeout', 'provider_unavailable',
  'unknown',
] as const;
export type AttemptOutcomeValue = ValueOf<typeof ATTEMPT_OUTCOMES>;

export const FAILURE_CATEGORIES = ['soft', 'hard', 'technical', 'policy'] as const;
export type FailureCategory = ValueOf<typeof FAILURE_CATEGORIES>;

export const NEXT_ACTION_TYPES = ['redirect', 'qr_code', 'display_details'] as const;
export type NextActionType = ValueOf<typeof NEXT_ACTION_TYPES>;

export const REFUND_STATUSES = ['created', 'processing', 'successful', 'failed'] as const;
export type RefundStatus = ValueOf<typeof REFUND_STATUSES>;

export const PAYOUT_STATUSES = ['created', 'pending', 'processing', 'successful', 'failed', 'cancelled'] as const;
export type PayoutStatus = ValueOf<typeof PAYOUT_STATUSES>;

export const SETTLEMENT_STATUSES = ['pending', 'settled', 'failed'] as const;
export type SettlementStatus = ValueOf<typeof SETTLEMENT_STATUSES>;

export const DESTINATION_TYPES = ['bank_account', 'wallet', 'card_token'] as const;
export type DestinationType = ValueOf<typeof DESTINATION_TYPES>;

/** A stored payment method's credential: a provider's token, or a vault's reference to the card. */
export const CREDENTIAL_TYPES = ['provider_token', 'vault_token'] as const;
/** How an attempt reached its provider: the token sent directly, or the card forwarded by a vault. */
export const ATTEMPT_PATHS = ['direct', 'forwarded'] as const;
/** The vaults a credential may reference: Stripe's Vault and Forward, Basis Theory's proxy. */
export const VAULTS = ['stripe', 'basis_theory'] as const;

/**
 * `dispute`: the disputed amount (negative) and the provider's dispute fee a provider withdrew;
 * `dispute_reversal`: the amount it reinstated (docs/ledger.md, "Disputes").
 */
export const TRANSACTION_TYPES = ['payment', 'refund', 'payout', 'fee', 'adjustment', 'dispute', 'dispute_reversal'] as const;
export type TransactionType = ValueOf<typeof TRANSACTION_TYPES>;

/**
 * A dispute over every provider, in one shape (docs/disputes.md has the state machine): its status,
 * the stage of the card scheme's process it is at, and its reason normalised from the provider's
 * own code (kept beside it as `provider_reason`).
 */
export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost', 'accepted', 'expired', 'cancelled'] as const;
export type DisputeStatus = ValueOf<typeof DISPUTE_STATUSES>;
export const DISPUTE_STAGES = ['inquiry', 'chargeback', 'pre_arbitration'] as const;
export type DisputeStage = ValueOf<typeof DISPUTE_STAGES>;
export const DISPUTE_REASONS = [
  'fraudulent', 'product_not_received', 'product_unacceptable', 'duplicate', 'credit_not_processed',
  'subscription_canceled', 'unrecognized', 'general',
] as const;
export type DisputeReason = ValueOf<typeof DISPUTE_REASONS>;
/** The text fields of a merchant's evidence on a dispute, as the API names them. */
export const DISPUTE_EVIDENCE_FIELDS = [
  'product_description', 'customer_communication', 'shipping_carrier', 'shipping_tracking_number', 'refund_policy',
  'uncategorized_text',
] as const;
export type DisputeEvidenceText = Partial<Record<ValueOf<typeof DISPUTE_EVIDENCE_FIELDS>, string>>;

export const TRANSACTION_STATUSES = ['pending', 'successful', 'failed'] as const;
export type TransactionStatus = ValueOf<typeof TRANSACTION_STATUSES>;

// Sandbox scenarios by name; what each one plays is the demo providers' business (payments'
// connectors/scenarios.ts, payouts' providers.ts), whose tests check they play exactly these.
export const PAYMENT_SCENARIOS = [
  'success', 'failover', 'timeout', 'timeout_recovered', 'unavailable', 'hard_decline', 'soft_decline', 'all_fail',
  'dispute', 'late_success',
] as const;
export const REFUND_SCENARIOS = ['success', 'technical_error', 'hard_decline'] as const;
export const PAYOUT_SCENARIOS = ['success', 'technical_error', 'hard_decline', 'unavailable', 'timeout', 'insufficient_funds'] as const;

/**
 * The contract's event types. The gateway validates `event_type` against them and the webhooks
 * part refuses subscriptions to anything else when an endpoint is saved.
 */
export const EVENT_TYPES = [
  'payment.created', 'payment.processing', 'payment.authorized', 'payment.successful', 'payment.failed',
  'payment.cancelled', 'payment.refunded', 'payment.late_charge_returned', 'refund.successful', 'refund.failed', 'payout.created',
  'payout.successful', 'payout.failed', 'payout.cancelled', 'settlement.created', 'dispute.created', 'dispute.updated',
  'dispute.closed',
] as const;
export type EventType = ValueOf<typeof EVENT_TYPES>;

/**
 * A routing rule's strategy types (docs/routing.md, "Strategies"), and those that learn from
 * outcomes and take `settings`; routing-risk checks a strategy against these.
 */
export const ROUTING_STRATEGY_TYPES = ['priority', 'cheapest', 'volume_split', 'success_rate', 'elimination', 'expected_value'] as const;
export const LEARNING_STRATEGY_TYPES = ['success_rate', 'elimination', 'expected_value'] as const;

/** The sandbox's demo providers (routing-risk's migration 0001 seeds them; the demo connector plays them). */
export const DEMO_PROVIDERS = ['demo_alpha', 'demo_beta', 'demo_gamma'] as const;
