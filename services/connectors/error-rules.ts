// How a connector's error table says what a provider's answer means: the contract's failure
// category, our failure code and message, the attempt outcome the orchestrator acts on, whether
// failover may try the next provider (derived from the outcome, so the two never disagree), and for
// a decline the contract's decline reason. Each connector keeps its own table of provider codes
// (stripe/errors.ts, adyen/errors.ts) built from these.
import { isDeclineOutcome, type DeclineReason } from '../contract/decline-reasons.js';
import type { AttemptOutcome, ConnectorFailure } from './types.js';

export interface ErrorRule extends ConnectorFailure {
  /** May the orchestrator try the next provider? Always agrees with `outcome` (tested per table). */
  failover: boolean;
  outcome: AttemptOutcome;
}

/**
 * The decline reason a row's failure code means when the row names none: most codes say it; a
 * row whose provider code says more (stolen_card beside lost_card) names its own.
 */
const REASON_BY_CODE: Readonly<Record<string, DeclineReason>> = {
  card_declined: 'generic_decline',
  wallet_declined: 'generic_decline',
  payment_denied: 'generic_decline',
  payment_failed: 'generic_decline',
  issuer_unavailable: 'issuer_unavailable',
  authentication_required: 'authentication_required',
  authentication_error: 'authentication_failed',
  authentication_failed: 'authentication_failed',
  card_not_supported: 'card_not_supported',
  method_not_supported: 'card_not_supported',
  currency_not_supported: 'currency_not_supported',
  amount_not_supported: 'invalid_amount',
  amount_not_allowed: 'invalid_amount',
  insufficient_funds: 'insufficient_funds',
  limit_exceeded: 'limit_exceeded',
  card_expired: 'expired_card',
  invalid_card_details: 'invalid_account',
  card_lost_or_stolen: 'pickup_card',
  card_restricted: 'restricted_card',
  suspected_fraud: 'suspected_fraud',
  duplicate_transaction: 'duplicate_transaction',
  test_card_in_live_mode: 'test_card_in_live_mode',
  account_restricted: 'account_restricted',
  account_closed: 'account_restricted',
  cancelled_by_customer: 'customer_cancelled',
  customer_cancelled: 'customer_cancelled',
  customer_action_expired: 'customer_action_expired',
};

export function rule(
  category: ErrorRule['category'], code: string, message: string, outcome: AttemptOutcome, reason?: DeclineReason,
): ErrorRule {
  const failover = outcome === 'soft_decline' || outcome === 'technical_error' || outcome === 'timeout'
    || outcome === 'provider_unavailable';
  const declineReason = isDeclineOutcome(outcome) ? reason ?? REASON_BY_CODE[code] ?? 'generic_decline' : undefined;
  return { category, code, message, outcome, failover, ...(declineReason && { declineReason }) };
}

// Declines another acquirer may well approve (the issuer gave no lasting reason), and refusals of
// this account that another provider does not share.
export const soft = (code: string, message: string, reason?: DeclineReason) => rule('soft', code, message, 'soft_decline', reason);
export const policy = (code: string, message: string, reason?: DeclineReason) => rule('policy', code, message, 'soft_decline', reason);
// Declines about the card or the customer: any provider would get the same answer, and trying
// again elsewhere looks like card testing to issuers.
export const hard = (code: string, message: string, reason?: DeclineReason) => rule('hard', code, message, 'hard_decline', reason);
// Nobody was charged and the provider, not the card, is the trouble.
export const technical = (code: string, message: string) => rule('technical', code, message, 'technical_error');
// The provider may have acted: no failover, the status query or reconciliation decides.
export const open = (code: string, message: string) => rule('technical', code, message, 'unknown');
