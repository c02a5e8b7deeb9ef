// Mollie's answers normalised AS DATA: each payment status that ends a payment, each failure reason
// Mollie gives for a failed card-like payment, each field a 422 names and each HTTP status maps to
// the contract's failure category, our failure code and message, whether failover may try the next
// provider, and the attempt outcome the orchestrator acts on. README.md prints
// these tables; errors.test.ts checks them row by row.
import { hard, open, policy, rule, soft, technical, type ErrorRule } from '../error-rules.js';

export type MollieRule = ErrorRule;

/**
 * A payment that ended without being paid, by its status (https://docs.mollie.com/reference/get-payment,
 * `status`). The customer went through Mollie's page already: another provider would need them back.
 */
export const PAYMENT_STATUSES: Readonly<Record<string, MollieRule>> = {
  failed: hard('payment_failed', 'The payment failed at Mollie and cannot be completed.'),
  canceled: hard('customer_cancelled', 'The customer cancelled the payment on Mollie\'s page.'),
  expired: hard('customer_action_expired', 'The customer did not complete the payment at Mollie in time.'),
};

/** A failed payment by `details.failureReason`, where Mollie gives one (cards and card-like methods). */
export const FAILURE_REASONS: Readonly<Record<string, MollieRule>> = {
  authentication_abandoned: hard('authentication_failed', 'The customer abandoned authentication.'),
  authentication_failed: hard('authentication_failed', 'The customer did not complete authentication.'),
  authentication_required: soft('authentication_required', 'The issuer requires the customer to authenticate.'),
  authentication_unavailable_acs: soft('issuer_unavailable', 'The issuer\'s authentication system was unavailable.'),
  card_declined: soft('card_declined', 'The card was declined by its issuer.'),
  card_expired: hard('card_expired', 'The card has expired.'),
  inactive_card: hard('card_restricted', 'The card is inactive.', 'invalid_account'),
  insufficient_funds: hard('insufficient_funds', 'The account has insufficient funds.'),
  invalid_cvv: hard('invalid_card_details', 'The card\'s security code is incorrect.', 'incorrect_cvc'),
  invalid_card_holder_name: hard('invalid_card_details', 'The card holder\'s name is invalid.'),
  invalid_card_number: hard('invalid_card_details', 'The card number is invalid.', 'incorrect_number'),
  invalid_card_type: policy('card_not_supported', 'The card\'s type is not accepted by this Mollie account.'),
  possible_fraud: hard('suspected_fraud', 'Mollie or the issuer declined the payment as suspected fraud.'),
  refused_by_issuer: soft('card_declined', 'The issuer refused the payment.'),
  unknown_reason: soft('card_declined', 'The payment was declined without a reason.'),
};

/** A 422 by the `field` it names (https://docs.mollie.com/reference/handling-errors). */
export const ERROR_FIELDS: Readonly<Record<string, MollieRule>> = {
  amount: policy('amount_not_supported', 'Mollie does not accept this amount for the method.'),
  'amount.value': policy('amount_not_supported', 'Mollie does not accept this amount for the method.'),
  'amount.currency': policy('currency_not_supported', 'Mollie does not accept this currency for the method.'),
  method: policy('method_not_supported', 'The method is not activated on this Mollie profile.'),
  issuer: technical('payment_method_unknown', 'Mollie does not know the issuer.'),
  redirectUrl: technical('provider_rejected_request', 'Mollie refused the payment\'s return_url.'),
  webhookUrl: technical('provider_not_configured', 'Mollie refused the account\'s webhook URL (webhook_base_url).'),
};

/** By HTTP status, when no field says more. */
export const HTTP_STATUSES: Readonly<Record<string, MollieRule>> = {
  400: technical('provider_rejected_request', 'Mollie could not read the request.'),
  401: technical('provider_auth_failed', 'Mollie refused this account\'s API key.'),
  403: technical('provider_rejected_request', 'Mollie does not allow this action with this API key.'),
  404: technical('provider_rejected_request', 'Mollie does not know the payment.'),
  410: technical('provider_rejected_request', 'The payment is gone at Mollie.'),
  422: technical('provider_rejected_request', 'Mollie rejected the request.'),
  429: rule('technical', 'provider_rate_limited', 'Mollie refused the request for its rate limit; nothing was processed.', 'provider_unavailable'),
  500: open('provider_unknown_outcome', 'Mollie answered with a server error; the outcome is indeterminate.'),
  502: open('provider_unknown_outcome', 'Mollie\'s gateway answered with an error; the outcome is indeterminate.'),
  503: open('provider_unknown_outcome', 'Mollie was unavailable; the outcome is indeterminate.'),
};

/** Conditions of our own that Mollie never answered, or answers outside the tables above. */
export const CONDITIONS = {
  // A 2xx answer the library could not read (empty, truncated, not JSON): the provider may have acted.
  unreadable: open('provider_unknown_outcome', 'Mollie\'s answer could not be read; the outcome is indeterminate.'),
  missing_credentials: rule('technical', 'provider_not_configured', 'The Mollie account has no usable credentials (API key).', 'provider_unavailable'),
  amount_not_representable: policy('amount_not_supported', 'Mollie cannot carry this amount exactly in this currency.'),
  unusable_method: technical('payment_method_unknown', 'The payment method token is not a Mollie method of this payment method type.'),
  return_url_required: technical('return_url_required', 'A Mollie payment sends the customer away and needs the payment\'s return_url.'),
  // The SDK checks ids and parameters before sending: nothing reached Mollie.
  refused_by_sdk: technical('provider_rejected_request', 'The Mollie SDK refused the request before sending it.'),
  no_checkout: technical('action_not_supported', 'Mollie answered an open payment without a page to send the customer to.'),
  pending: open('provider_unknown_outcome', 'Mollie is still processing the payment.'),
  not_found_yet: open('provider_unknown_outcome', 'Mollie does not list the attempt yet.'),
  connection: rule('technical', 'provider_timeout', 'Mollie could not be reached or did not answer in time.', 'timeout'),
} as const satisfies Record<string, MollieRule>;

/** The parts of a Mollie answer or error the tables read. */
export interface MollieAnswerLike {
  /** A payment's status and, for a failed one, its failure reason. */
  status?: string;
  failureReason?: string;
  /** An HTTP error's status (0 when nothing answered) and the field it names. */
  httpStatus?: number;
  field?: string;
}

/**
 * The rule for a failed answer: an HTTP error by its field, then its status (an unlisted 5xx or no
 * answer stays open: it may have created the payment); a payment by its failure reason, then status.
 */
export function ruleFor(a: MollieAnswerLike): MollieRule {
  if (a.httpStatus !== undefined) {
    if (a.httpStatus >= 200 && a.httpStatus < 300) return CONDITIONS.unreadable;
    if (a.httpStatus === 0 || a.httpStatus === 408 || a.httpStatus === 504) return CONDITIONS.connection;
    if (a.httpStatus >= 500) return HTTP_STATUSES[a.httpStatus] ?? HTTP_STATUSES[500];
    const byField = a.httpStatus === 422 && a.field !== undefined ? ERROR_FIELDS[a.field] : undefined;
    return byField ?? HTTP_STATUSES[a.httpStatus] ?? HTTP_STATUSES[422];
  }
  if (a.status === 'failed' && a.failureReason && FAILURE_REASONS[a.failureReason]) return FAILURE_REASONS[a.failureReason];
  return PAYMENT_STATUSES[a.status ?? ''] ?? CONDITIONS.pending;
}
