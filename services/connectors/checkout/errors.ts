// Checkout.com's answers normalised AS DATA: each response_code of a payment, error code of a 422,
// HTTP status and transport condition maps to the contract's failure category, our failure code and
// message, whether failover may try the next provider, and the attempt outcome the orchestrator acts
// on. README.md prints these tables; errors.test.ts checks them row by row.
import { hard, open, policy, rule, soft, technical, type ErrorRule } from '../error-rules.js';

export type CheckoutRule = ErrorRule;

const DECLINED = 'The card was declined by its issuer';

/**
 * A declined payment by `response_code` (https://www.checkout.com/docs/developer-resources/codes/api-response-codes):
 * 20xxx soft declines (the issuer may approve another time or elsewhere, unless the code names the
 * card or the customer), 30xxx hard declines (the card must not be tried again), 4xxxx risk refusals.
 */
export const RESPONSE_CODES: Readonly<Record<string, CheckoutRule>> = {
  20001: soft('card_declined', `${DECLINED}; the customer may contact the issuer.`),
  20002: soft('card_declined', `${DECLINED} under special conditions; the customer may contact the issuer.`),
  20003: policy('card_not_supported', 'The issuer does not accept payments from this merchant at this provider.'),
  20005: soft('card_declined', `${DECLINED} (do not honour).`, 'do_not_honor'),
  20006: technical('provider_error', 'The issuer could not read the request; nobody was charged.'),
  20009: open('provider_unknown_outcome', 'The issuer is still processing the payment.'),
  20012: soft('card_declined', `${DECLINED} for this kind of transaction.`, 'transaction_not_allowed'),
  20013: hard('amount_not_allowed', 'The issuer refused the amount.'),
  20014: hard('invalid_card_details', 'The card number is invalid.', 'incorrect_number'),
  20019: soft('issuer_unavailable', 'The issuer could not process the payment; it may be tried again.', 'try_again_later'),
  20046: hard('card_restricted', 'The card\'s account is closed.', 'invalid_account'),
  20051: hard('insufficient_funds', 'The card has insufficient funds.'),
  20054: hard('card_expired', 'The card has expired.'),
  20055: hard('invalid_card_details', 'The card\'s PIN is incorrect.', 'incorrect_pin'),
  20056: hard('invalid_card_details', 'The issuer has no record of the card.'),
  20057: hard('card_restricted', 'The payment is not permitted on this card.', 'transaction_not_allowed'),
  20058: policy('card_not_supported', 'The card may not be used at this provider\'s terminal.'),
  20059: hard('suspected_fraud', 'The issuer declined the payment as suspected fraud.'),
  20061: hard('limit_exceeded', 'The card has exceeded its amount limit.'),
  20062: hard('card_restricted', 'The card may not be used for this payment.'),
  20063: hard('card_restricted', 'The issuer declined for security reasons.'),
  20065: hard('limit_exceeded', 'The card has exceeded its transaction count limit.'),
  20068: soft('issuer_unavailable', 'The issuer answered too late.'),
  20075: hard('card_restricted', 'The card\'s PIN was entered wrongly too often.', 'incorrect_pin'),
  20082: hard('invalid_card_details', 'The card\'s security code is incorrect.', 'incorrect_cvc'),
  20083: hard('suspected_fraud', 'The issuer declined for fraud or a security violation.'),
  20087: hard('invalid_card_details', 'The card\'s verification data is wrong.', 'incorrect_cvc'),
  20091: soft('issuer_unavailable', 'The card issuer could not be reached.'),
  20093: hard('card_restricted', 'The payment would violate the law and cannot be completed.'),
  20096: soft('issuer_unavailable', 'The card network had a malfunction.'),
  20100: hard('invalid_card_details', 'The card\'s expiry date is invalid.', 'incorrect_expiry'),
  20103: policy('card_not_supported', 'The card is not supported by this Checkout.com account.'),
  20106: policy('currency_not_supported', 'The card does not support this currency at this provider.'),
  20150: soft('authentication_required', 'The card is not enrolled for 3-D Secure, which this payment requires.'),
  20151: hard('authentication_failed', 'The customer did not complete 3-D Secure authentication.'),
  20152: hard('authentication_failed', 'The customer did not complete 3-D Secure authentication in time.'),
  20153: soft('issuer_unavailable', 'The 3-D Secure system had a malfunction.'),
  20154: soft('authentication_required', 'The issuer requires the customer to authenticate (3-D Secure).'),
  30004: hard('card_restricted', 'The issuer asks to keep the card (pick up card).', 'pickup_card'),
  30007: hard('card_restricted', 'The issuer asks to keep the card under special conditions.', 'pickup_card'),
  30015: hard('invalid_card_details', 'The card\'s issuer does not exist.'),
  30021: hard('card_restricted', 'The customer stopped payments to this merchant.', 'authorization_revoked'),
  30033: hard('card_expired', 'The card has expired and must be kept.'),
  30034: hard('suspected_fraud', 'The card is suspected of fraud and must be kept.'),
  30036: hard('card_restricted', 'The card is restricted and must be kept.'),
  30038: hard('card_restricted', 'The card\'s PIN was entered wrongly too often; the card must be kept.', 'incorrect_pin'),
  30041: hard('card_lost_or_stolen', 'The card is reported lost.', 'lost_card'),
  30043: hard('card_lost_or_stolen', 'The card is reported stolen.', 'stolen_card'),
  30044: hard('card_restricted', 'The card\'s account is closed.', 'invalid_account'),
  40101: hard('suspected_fraud', 'Checkout.com\'s risk rules blocked the payment.'),
  40201: hard('suspected_fraud', 'The card number is on a block list of this Checkout.com account.', 'merchant_blocklist'),
  40202: hard('suspected_fraud', 'The customer\'s IP address is on a block list of this Checkout.com account.', 'merchant_blocklist'),
  40203: hard('suspected_fraud', 'The customer\'s email is on a block list of this Checkout.com account.', 'merchant_blocklist'),
  40204: hard('suspected_fraud', 'The customer\'s phone is on a block list of this Checkout.com account.', 'merchant_blocklist'),
  40205: hard('suspected_fraud', 'The card\'s BIN is on a block list of this Checkout.com account.', 'merchant_blocklist'),
};

/** A 422 by the first of its `error_codes` (https://api-reference.checkout.com, "Errors"). */
export const ERROR_CODES: Readonly<Record<string, CheckoutRule>> = {
  token_invalid: technical('payment_method_unknown', 'Checkout.com does not know the card token.'),
  token_expired: technical('payment_method_unknown', 'The card token has expired at Checkout.com (tokens live 15 minutes).'),
  token_used: technical('payment_method_unknown', 'The card token was already used at Checkout.com.'),
  source_id_invalid: technical('payment_method_unknown', 'Checkout.com does not know the stored payment instrument.'),
  currency_invalid: policy('currency_not_supported', 'Checkout.com does not accept this currency.'),
  currency_not_supported: policy('currency_not_supported', 'This Checkout.com account does not accept this currency.'),
  amount_invalid: policy('amount_not_supported', 'Checkout.com does not accept this amount.'),
  processing_channel_id_invalid: technical('provider_not_configured', 'Checkout.com does not know the account\'s processing channel.'),
  processing_channel_id_required: technical('provider_not_configured', 'The Checkout.com account needs its processing channel.'),
  refund_amount_exceeds_balance: hard('amount_not_allowed', 'The refund exceeds what remains of the payment at Checkout.com.'),
  capture_value_greater_than_authorized: hard('amount_not_allowed', 'The capture exceeds the authorized amount at Checkout.com.'),
  payment_source_required: technical('payment_method_unknown', 'Checkout.com received no payment source.'),
};

/** By HTTP status, when no error code says more. */
export const HTTP_STATUSES: Readonly<Record<string, CheckoutRule>> = {
  400: technical('provider_rejected_request', 'Checkout.com could not read the request.'),
  401: technical('provider_auth_failed', 'Checkout.com refused this account\'s secret key.'),
  403: technical('provider_rejected_request', 'Checkout.com does not allow this action on the payment.'),
  404: technical('provider_rejected_request', 'Checkout.com does not know the payment.'),
  // The key is still in use by the first request (or was used with another body): what became of it is unknown.
  409: open('provider_unknown_outcome', 'Checkout.com is still processing the first request with this idempotency key.'),
  422: technical('provider_rejected_request', 'Checkout.com rejected the request.'),
  429: rule('technical', 'provider_rate_limited', 'Checkout.com refused the request for its rate limit; nothing was processed.', 'provider_unavailable'),
  500: open('provider_unknown_outcome', 'Checkout.com answered with a server error; the outcome is indeterminate.'),
  502: open('provider_unknown_outcome', 'Checkout.com\'s gateway answered with an error; the outcome is indeterminate.'),
  503: open('provider_unknown_outcome', 'Checkout.com was unavailable; the outcome is indeterminate.'),
};

/** Conditions of our own that Checkout.com never answered, or answers outside the tables above. */
export const CONDITIONS = {
  // A 2xx answer the library could not read (empty, truncated, not JSON): the provider may have acted.
  unreadable: open('provider_unknown_outcome', 'Checkout.com\'s answer could not be read; the outcome is indeterminate.'),
  missing_credentials: rule('technical', 'provider_not_configured', 'The Checkout.com account has no usable credentials (secret key).', 'provider_unavailable'),
  amount_not_representable: policy('amount_not_supported', 'Checkout.com cannot carry this amount exactly in this currency.'),
  unusable_token: technical('payment_method_unknown', 'The payment method token is not a Checkout.com token (tok_…) or instrument (src_…).'),
  // Routing chose a vault this deployment has no forwarder for: nothing was sent.
  vault_not_connected: rule('technical', 'vault_unavailable', 'The vault that would forward the card to Checkout.com is not available.', 'provider_unavailable'),
  // The SDK checks the request before sending it (currency list, amount): nothing reached Checkout.com.
  refused_by_sdk: technical('provider_rejected_request', 'The Checkout.com SDK refused the request before sending it.'),
  unsupported_action: technical('action_not_supported', 'Checkout.com asked for a customer action that has no page to send the customer to.'),
  declined: soft('card_declined', `${DECLINED} without a reason.`),
  cancelled: technical('payment_cancelled', 'The payment was voided, cancelled or expired at Checkout.com.'),
  pending: open('provider_unknown_outcome', 'Checkout.com is still processing the payment.'),
  not_found_yet: open('provider_unknown_outcome', 'Checkout.com does not list the attempt yet.'),
  connection: rule('technical', 'provider_timeout', 'Checkout.com could not be reached or did not answer in time.', 'timeout'),
} as const satisfies Record<string, CheckoutRule>;

/** The parts of a Checkout.com answer or error the tables read. */
export interface CheckoutAnswerLike {
  responseCode?: string;
  /** An HTTP error's status (0 when nothing answered) and the first of its error_codes. */
  status?: number;
  errorCode?: string;
}

/**
 * The rule for a failed answer: a decline by response_code (an unlisted 30xxx is hard, 4xxxx a
 * risk refusal, anything else a generic soft decline); an HTTP error by its error code, then its
 * status. An unlisted 5xx or no answer stays open: it may have charged.
 */
export function ruleFor(a: CheckoutAnswerLike): CheckoutRule {
  if (a.status !== undefined) {
    if (a.status >= 200 && a.status < 300) return CONDITIONS.unreadable;
    if (a.status === 0 || a.status === 408) return CONDITIONS.connection;
    if (a.status >= 500) return HTTP_STATUSES[a.status] ?? HTTP_STATUSES[500];
    return (a.errorCode !== undefined && ERROR_CODES[a.errorCode]) || HTTP_STATUSES[a.status] || HTTP_STATUSES[422];
  }
  const code = a.responseCode ?? '';
  if (RESPONSE_CODES[code]) return RESPONSE_CODES[code];
  if (/^3\d{4}$/.test(code)) return RESPONSE_CODES[30004];
  if (/^4\d{4}$/.test(code)) return RESPONSE_CODES[40101];
  return CONDITIONS.declined;
}
