// The contract's enumerations, verbatim.
export const PAYMENT_METHOD_TYPES = ['card', 'bank_transfer', 'qr', 'open_banking', 'wallet', 'instant', 'local'] as const;
export const PAYMENT_STATUSES = [
  'created', 'pending', 'processing', 'authorized', 'captured', 'successful', 'failed', 'cancelled', 'refunded',
  'partially_refunded',
] as const;
export const CAPTURE_METHODS = ['automatic', 'manual'] as const;
export const ATTEMPT_STATUSES = ['created', 'processing', 'unknown', 'authorized', 'succeeded', 'failed', 'cancelled'] as const;
export const ATTEMPT_OUTCOMES = [
  'success', 'requires_action', 'soft_decline', 'hard_decline', 'technical_error', 'timeout', 'provider_unavailable',
  'unknown',
] as const;
export const FAILURE_CATEGORIES = ['soft', 'hard', 'technical', 'policy'] as const;
export const NEXT_ACTION_TYPES = ['redirect', 'qr_code', 'display_details'] as const;
export const REFUND_STATUSES = ['created', 'processing', 'successful', 'failed'] as const;
export const PAYOUT_STATUSES = ['created', 'pending', 'processing', 'successful', 'failed', 'cancelled'] as const;
export const SETTLEMENT_STATUSES = ['pending', 'settled', 'failed'] as const;
export const DESTINATION_TYPES = ['bank_account', 'wallet', 'card_token'] as const;
export const TRANSACTION_TYPES = ['payment', 'refund', 'payout', 'fee', 'adjustment'] as const;
export const MODES = ['test', 'live'] as const;
export const PAYMENT_SCENARIOS = [
  'success', 'failover', 'timeout', 'timeout_recovered', 'unavailable', 'hard_decline', 'soft_decline', 'all_fail',
] as const;
export const REFUND_SCENARIOS = ['success', 'technical_error', 'hard_decline'] as const;
export const PAYOUT_SCENARIOS = ['success', 'technical_error', 'hard_decline', 'unavailable', 'timeout'] as const;
// The one list of event types lives with the bus's envelope, so the webhooks part shares it.
export { EVENT_TYPES } from '../../services/shared/events.js';
