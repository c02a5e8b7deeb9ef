// Stripe's answers normalised AS DATA: each Stripe decline_code, error code, error type and
// transport condition maps to the contract's failure category, our failure code and message,
// whether failover may try the next provider, and the attempt outcome the orchestrator acts on.
// README.md prints this table; errors.test.ts checks it row by row.
import { hard, policy, rule, soft, technical, type ErrorRule } from '../error-rules.js';

export type StripeRule = ErrorRule;

const DECLINED = 'The card was declined by its issuer';

/** Card errors by `decline_code` (https://docs.stripe.com/declines/codes). */
export const DECLINE_CODES: Readonly<Record<string, StripeRule>> = {
  generic_decline: soft('card_declined', `${DECLINED} without a reason.`, 'generic_decline'),
  do_not_honor: soft('card_declined', `${DECLINED} (do not honor).`, 'do_not_honor'),
  call_issuer: soft('card_declined', `${DECLINED}; the customer may contact the issuer.`),
  no_action_taken: soft('card_declined', `${DECLINED} without a reason.`),
  try_again_later: soft('issuer_unavailable', 'The issuer asked to try again later.', 'try_again_later'),
  issuer_not_available: soft('issuer_unavailable', 'The card issuer could not be reached.'),
  reenter_transaction: soft('issuer_unavailable', 'The issuer could not process the payment; it may be tried again.', 'try_again_later'),
  processing_error: soft('issuer_unavailable', 'An error occurred while processing the card.'),
  approve_with_id: soft('card_declined', 'The issuer could not authorize the payment without more details.'),
  transaction_not_allowed: soft('card_declined', `${DECLINED} for this kind of transaction.`, 'transaction_not_allowed'),
  authentication_required: soft('authentication_required', 'The issuer requires the customer to authenticate (3-D Secure).'),
  card_not_supported: policy('card_not_supported', 'The card does not support this kind of purchase at this provider.'),
  currency_not_supported: policy('currency_not_supported', 'The card does not support this currency at this provider.'),
  insufficient_funds: hard('insufficient_funds', 'The card has insufficient funds.'),
  withdrawal_count_limit_exceeded: hard('limit_exceeded', 'The card has exceeded its limit.'),
  card_velocity_exceeded: hard('limit_exceeded', 'The card has exceeded its balance, credit limit or transaction count.'),
  expired_card: hard('card_expired', 'The card has expired.'),
  incorrect_cvc: hard('invalid_card_details', 'The card\'s security code is incorrect.', 'incorrect_cvc'),
  invalid_cvc: hard('invalid_card_details', 'The card\'s security code is invalid.', 'incorrect_cvc'),
  incorrect_number: hard('invalid_card_details', 'The card number is incorrect.', 'incorrect_number'),
  invalid_number: hard('invalid_card_details', 'The card number is invalid.', 'incorrect_number'),
  invalid_expiry_month: hard('invalid_card_details', 'The card\'s expiry month is invalid.', 'incorrect_expiry'),
  invalid_expiry_year: hard('invalid_card_details', 'The card\'s expiry year is invalid.', 'incorrect_expiry'),
  incorrect_zip: hard('invalid_card_details', 'The card\'s postal code is incorrect.', 'incorrect_address'),
  invalid_account: hard('invalid_card_details', 'The card or its account is invalid.'),
  invalid_amount: hard('amount_not_allowed', 'The issuer refused the amount.'),
  new_account_information_available: hard('invalid_card_details', 'The card or its account is no longer valid.'),
  lost_card: hard('card_lost_or_stolen', 'The card is reported lost.', 'lost_card'),
  stolen_card: hard('card_lost_or_stolen', 'The card is reported stolen.', 'stolen_card'),
  pickup_card: hard('card_lost_or_stolen', 'The card may not be used (reported lost or stolen).'),
  restricted_card: hard('card_restricted', 'The card may not be used for this payment.'),
  not_permitted: hard('card_restricted', 'The payment is not permitted on this card.', 'transaction_not_allowed'),
  service_not_allowed: hard('card_restricted', 'The card does not allow this service.', 'transaction_not_allowed'),
  security_violation: hard('card_restricted', 'The issuer declined for security reasons.'),
  revocation_of_authorization: hard('card_restricted', 'The customer revoked this merchant\'s authorization.', 'authorization_revoked'),
  revocation_of_all_authorizations: hard('card_restricted', 'The customer revoked all authorizations.', 'authorization_revoked'),
  stop_payment_order: hard('card_restricted', 'The customer stopped payments to this merchant.', 'authorization_revoked'),
  fraudulent: hard('suspected_fraud', 'The payment was declined as suspected fraud.'),
  merchant_blacklist: hard('suspected_fraud', 'The payment matches a block list of this Stripe account.', 'merchant_blocklist'),
  duplicate_transaction: hard('duplicate_transaction', 'An identical payment was made very recently.'),
  testmode_decline: hard('test_card_in_live_mode', 'A Stripe test card was used for a live payment.'),
  live_mode_test_card: hard('test_card_in_live_mode', 'A Stripe test card was used for a live payment.'),
};

/** Errors by `code` when no decline_code says more (https://docs.stripe.com/error-codes). */
export const ERROR_CODES: Readonly<Record<string, StripeRule>> = {
  card_declined: soft('card_declined', `${DECLINED}.`),
  expired_card: DECLINE_CODES.expired_card,
  incorrect_cvc: DECLINE_CODES.incorrect_cvc,
  incorrect_number: DECLINE_CODES.incorrect_number,
  invalid_cvc: DECLINE_CODES.invalid_cvc,
  invalid_number: DECLINE_CODES.invalid_number,
  invalid_expiry_month: DECLINE_CODES.invalid_expiry_month,
  invalid_expiry_year: DECLINE_CODES.invalid_expiry_year,
  incorrect_zip: DECLINE_CODES.incorrect_zip,
  processing_error: technical('provider_error', 'Stripe could not process the card; nobody was charged.'),
  authentication_required: DECLINE_CODES.authentication_required,
  payment_intent_authentication_failure: hard('authentication_failed', 'The customer did not complete authentication.'),
  amount_too_small: policy('amount_not_supported', 'The amount is below Stripe\'s minimum for this currency.'),
  amount_too_large: policy('amount_not_supported', 'The amount is above Stripe\'s maximum.'),
  payment_method_not_available: policy('method_not_supported', 'The payment method is not available at this Stripe account.'),
  payment_method_unactivated: policy('method_not_supported', 'The payment method is not activated at this Stripe account.'),
  payment_method_currency_mismatch: policy('currency_not_supported', 'The payment method does not support this currency.'),
  payment_intent_unexpected_state: hard('invalid_provider_state', 'The PaymentIntent\'s state at Stripe does not allow this.'),
  charge_already_refunded: hard('already_refunded', 'The payment is already fully refunded at Stripe.'),
  resource_missing: technical('payment_method_unknown', 'Stripe does not know the payment method token for this account.'),
  parameter_invalid_integer: technical('provider_rejected_request', 'Stripe rejected the request.'),
  parameter_missing: technical('provider_rejected_request', 'Stripe rejected the request.'),
  idempotency_key_in_use: rule('technical', 'provider_unknown_outcome', 'Stripe is still processing the first request of this attempt.', 'unknown'),
  rate_limit: rule('technical', 'provider_rate_limited', 'Stripe refused the request for its rate limit; nothing was processed.', 'provider_unavailable'),
  lock_timeout: rule('technical', 'provider_rate_limited', 'Stripe could not lock the object; nothing was processed.', 'provider_unavailable'),
};

/** By the SDK's error type (its HTTP status), when neither code is known. */
export const ERROR_TYPES: Readonly<Record<string, StripeRule>> = {
  StripeCardError: ERROR_CODES.card_declined,
  StripeInvalidRequestError: technical('provider_rejected_request', 'Stripe rejected the request.'),
  StripeAuthenticationError: technical('provider_auth_failed', 'Stripe refused this account\'s secret key.'),
  StripePermissionError: technical('provider_auth_failed', 'This account\'s key may not make this request at Stripe.'),
  StripeRateLimitError: ERROR_CODES.rate_limit,
  // Stripe saves and replays the first answer of a key; a different body means this key met other
  // parameters before, so what Stripe did with them is not known from here.
  StripeIdempotencyError: rule('technical', 'provider_unknown_outcome', 'Stripe holds this attempt\'s key with other parameters.', 'unknown'),
  // "Treat the result of a 500 request as indeterminate": it may have been charged.
  StripeAPIError: rule('technical', 'provider_unknown_outcome', 'Stripe answered with a server error; the outcome is indeterminate.', 'unknown'),
  StripeConnectionError: rule('technical', 'provider_timeout', 'Stripe could not be reached or did not answer in time.', 'timeout'),
};

/** Conditions of our own that Stripe never answered. */
export const CONDITIONS = {
  missing_credentials: rule('technical', 'provider_not_configured', 'The Stripe account has no stored credentials.', 'provider_unavailable'),
  amount_not_representable: policy('amount_not_supported', 'Stripe cannot carry this amount exactly in this currency.'),
  unsupported_next_action: technical('action_not_supported', 'Stripe asked for a customer action that has no redirect page.'),
  canceled: technical('payment_cancelled', 'The PaymentIntent was canceled at Stripe.'),
  processing: rule('technical', 'provider_unknown_outcome', 'Stripe is still processing the payment.', 'unknown'),
  unexpected_status: rule('technical', 'provider_unknown_outcome', 'The PaymentIntent is in a state that decides nothing yet.', 'unknown'),
} as const satisfies Record<string, StripeRule>;

/** The parts of a Stripe error (the SDK's StripeError, or last_payment_error of a PaymentIntent) the table reads. */
export interface StripeErrorLike {
  type?: string;
  code?: string | null;
  decline_code?: string | null;
  statusCode?: number;
}

/** The rule for an error: decline_code first, then code, then the error's type; an unknown card error is a generic decline. */
export function ruleFor(err: StripeErrorLike): StripeRule {
  if (err.decline_code && DECLINE_CODES[err.decline_code]) return DECLINE_CODES[err.decline_code];
  if (err.code && ERROR_CODES[err.code]) return ERROR_CODES[err.code];
  if (err.type && ERROR_TYPES[err.type]) return ERROR_TYPES[err.type];
  // last_payment_error carries the raw type: card_error, invalid_request_error, api_error.
  if (err.type === 'card_error') return ERROR_CODES.card_declined;
  if (err.type === 'invalid_request_error') return ERROR_TYPES.StripeInvalidRequestError;
  return ERROR_TYPES.StripeAPIError;
}
