// Why a provider declined, in one normalised vocabulary (as Stripe's decline_code is for Stripe):
// the payment's `failure.decline_reason`. Each connector maps its provider's own codes onto these
// (its errors.ts, through error-rules.ts); the demo providers and the sandbox's scenarios use them
// too. A decline whose provider gave no reason we know is generic_decline; a failure that is no
// decline (a technical fault, a time-out) has none. Imports nothing, so the dashboard may read it.

/** Each reason and what it tells the merchant, in the order the reference lists them. */
export const DECLINE_REASON_TEXT = {
  generic_decline: 'The issuer declined without giving a reason.',
  do_not_honor: 'The issuer declined (do not honor) without giving a reason.',
  insufficient_funds: 'The card or account has insufficient funds.',
  limit_exceeded: 'The card has exceeded its amount or transaction count limit.',
  lost_card: 'The card is reported lost.',
  stolen_card: 'The card is reported stolen.',
  pickup_card: 'The issuer asks to keep the card (reported lost or stolen).',
  expired_card: 'The card has expired.',
  incorrect_cvc: 'The card\'s security code is incorrect.',
  incorrect_number: 'The card number is incorrect.',
  incorrect_expiry: 'The card\'s expiry date is incorrect.',
  incorrect_address: 'The billing address or postal code does not match the card\'s.',
  incorrect_pin: 'The card\'s PIN is incorrect.',
  invalid_account: 'The card or its account is invalid or closed.',
  invalid_amount: 'The issuer or provider refused the amount.',
  restricted_card: 'The card may not be used for this payment.',
  transaction_not_allowed: 'The card does not allow this kind of transaction.',
  card_not_supported: 'The card or method is not supported for this payment at this provider.',
  currency_not_supported: 'The card or method does not support this currency at this provider.',
  suspected_fraud: 'The issuer or provider declined the payment as suspected fraud.',
  merchant_blocklist: 'The payment matches a block list of the merchant\'s provider account.',
  duplicate_transaction: 'An identical payment was made very recently.',
  authentication_required: 'The issuer requires the customer to authenticate.',
  authentication_failed: 'The customer did not complete authentication.',
  authorization_revoked: 'The customer revoked the merchant\'s authorization or stopped its payments.',
  issuer_unavailable: 'The issuer could not be reached or could not process the payment.',
  try_again_later: 'The issuer asked to try again later.',
  account_restricted: 'The customer\'s wallet account is restricted, locked or closed.',
  customer_cancelled: 'The customer cancelled or declined the payment.',
  customer_action_expired: 'The customer did not complete the payment in time.',
  test_card_in_live_mode: 'A test card was used for a live payment.',
} as const;

export type DeclineReason = keyof typeof DECLINE_REASON_TEXT;
export const DECLINE_REASONS = Object.keys(DECLINE_REASON_TEXT) as DeclineReason[];

/** The attempt outcomes that are declines: only these carry a decline reason. */
export function isDeclineOutcome(outcome: string | null | undefined): boolean {
  return outcome === 'soft_decline' || outcome === 'hard_decline';
}

export function isDeclineReason(value: unknown): value is DeclineReason {
  return typeof value === 'string' && Object.hasOwn(DECLINE_REASON_TEXT, value);
}
