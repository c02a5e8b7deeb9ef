// PayPal's answers normalised AS DATA: each issue of an error's `details`, error name, HTTP status
// and condition of our own maps to the contract's failure category, our failure code and message,
// whether failover may try the next provider, and the attempt outcome the orchestrator acts on.
// README.md prints these tables; errors.test.ts checks them row by row.
import { hard, open, policy, rule, soft, technical, type ErrorRule } from '../error-rules.js';

export type PayPalRule = ErrorRule;

/**
 * By the first `details[].issue` of an error (https://developer.paypal.com/api/rest/reference/orders/v2/errors/
 * and the Payments v2 errors): the most specific thing PayPal says. Orders, captures, authorizations and refunds share them.
 */
export const ISSUES: Readonly<Record<string, PayPalRule>> = {
  // The funding source (card or bank behind the PayPal account) was declined: another method may work.
  INSTRUMENT_DECLINED: soft('wallet_declined', 'The customer\'s PayPal funding source was declined.'),
  PAYER_ACTION_REQUIRED: soft('authentication_required', 'PayPal needs the customer to act on its page again before it can complete the payment.'),
  // Capturing before the customer approved: nothing moved and the customer may still approve.
  ORDER_NOT_APPROVED: open('provider_unknown_outcome', 'The customer has not approved the PayPal order yet.'),
  // Taken already under another request id: what the order holds is read again.
  ORDER_ALREADY_CAPTURED: open('provider_unknown_outcome', 'The PayPal order was already captured.'),
  ORDER_ALREADY_AUTHORIZED: open('provider_unknown_outcome', 'The PayPal order was already authorized.'),
  ORDER_EXPIRED: technical('payment_cancelled', 'The PayPal order expired before it was completed.'),
  ORDER_CANNOT_BE_SAVED: technical('provider_rejected_request', 'PayPal could not keep the order.'),
  PAYER_CANNOT_PAY: hard('account_restricted', 'The customer cannot pay this payment with PayPal.'),
  PAYER_ACCOUNT_RESTRICTED: hard('account_restricted', 'The customer\'s PayPal account is restricted.'),
  PAYER_ACCOUNT_LOCKED_OR_CLOSED: hard('account_closed', 'The customer\'s PayPal account is locked or closed.'),
  PAYEE_ACCOUNT_RESTRICTED: technical('provider_not_configured', 'The merchant\'s PayPal account is restricted.'),
  PAYEE_ACCOUNT_LOCKED_OR_CLOSED: technical('provider_not_configured', 'The merchant\'s PayPal account is locked or closed.'),
  TRANSACTION_REFUSED: hard('suspected_fraud', 'PayPal refused the transaction.'),
  COMPLIANCE_VIOLATION: hard('suspected_fraud', 'PayPal refused the transaction for a compliance violation.'),
  MAX_NUMBER_OF_PAYMENT_ATTEMPTS_EXCEEDED: hard('limit_exceeded', 'The customer tried to pay this order too many times.'),
  DUPLICATE_INVOICE_ID: hard('duplicate_transaction', 'PayPal already has a payment with this invoice id.'),
  CURRENCY_NOT_SUPPORTED: policy('currency_not_supported', 'PayPal does not accept this currency.'),
  CURRENCY_NOT_SUPPORTED_FOR_COUNTRY: policy('currency_not_supported', 'PayPal does not accept this currency for the merchant\'s country.'),
  INVALID_CURRENCY_CODE: policy('currency_not_supported', 'PayPal does not know this currency.'),
  DECIMAL_PRECISION: policy('amount_not_supported', 'PayPal cannot carry this amount\'s decimals in this currency.'),
  AMOUNT_MISMATCH: technical('provider_rejected_request', 'PayPal found the order\'s amounts inconsistent.'),
  INVALID_PARAMETER_VALUE: technical('provider_rejected_request', 'PayPal rejected a value of the request.'),
  MISSING_REQUIRED_PARAMETER: technical('provider_rejected_request', 'PayPal found a required value missing from the request.'),
  PERMISSION_DENIED: technical('provider_not_configured', 'The PayPal app may not make this call for the account.'),
  INVALID_RESOURCE_ID: technical('provider_rejected_request', 'PayPal does not know the order, authorization or capture.'),
  AUTHORIZATION_EXPIRED: hard('invalid_provider_state', 'The PayPal authorization has expired.'),
  AUTHORIZATION_VOIDED: hard('invalid_provider_state', 'The PayPal authorization was voided.'),
  AUTHORIZATION_ALREADY_CAPTURED: hard('invalid_provider_state', 'The PayPal authorization was already captured in full.'),
  CANNOT_BE_VOIDED: hard('invalid_provider_state', 'The PayPal authorization can no longer be voided.'),
  PREVIOUSLY_VOIDED: hard('invalid_provider_state', 'The PayPal authorization was already voided.'),
  MAX_CAPTURE_AMOUNT_EXCEEDED: hard('amount_not_allowed', 'The capture exceeds what remains of the PayPal authorization.'),
  REFUND_AMOUNT_EXCEEDED: hard('amount_not_allowed', 'The refund exceeds what remains of the PayPal capture.'),
  CAPTURE_FULLY_REFUNDED: hard('already_refunded', 'The PayPal capture is already refunded in full.'),
  REFUND_TIME_LIMIT_EXCEEDED: hard('refund_not_allowed', 'The PayPal capture is too old to be refunded.'),
  REFUND_NOT_ALLOWED: hard('refund_not_allowed', 'PayPal does not allow a refund of this capture.'),
  INSUFFICIENT_FUNDS: policy('provider_balance_insufficient', 'The merchant\'s PayPal balance cannot fund the refund.'),
};

/** By the error's `name` when no issue is listed. */
export const NAMES: Readonly<Record<string, PayPalRule>> = {
  INVALID_REQUEST: technical('provider_rejected_request', 'PayPal could not read the request.'),
  AUTHENTICATION_FAILURE: technical('provider_auth_failed', 'PayPal refused the account\'s client id and secret.'),
  invalid_client: technical('provider_auth_failed', 'PayPal refused the account\'s client id and secret.'),
  NOT_AUTHORIZED: technical('provider_not_configured', 'The PayPal app is not allowed this call.'),
  RESOURCE_NOT_FOUND: technical('provider_rejected_request', 'PayPal does not know the order, authorization or capture.'),
  UNPROCESSABLE_ENTITY: technical('provider_rejected_request', 'PayPal could not perform the request.'),
  INTERNAL_SERVER_ERROR: open('provider_unknown_outcome', 'PayPal answered with a server error; the outcome is indeterminate.'),
  SERVICE_UNAVAILABLE: open('provider_unknown_outcome', 'PayPal was unavailable; the outcome is indeterminate.'),
};

/** By HTTP status, when neither issue nor name says more. */
export const HTTP_STATUSES: Readonly<Record<string, PayPalRule>> = {
  400: technical('provider_rejected_request', 'PayPal could not read the request.'),
  401: technical('provider_auth_failed', 'PayPal refused the account\'s client id and secret.'),
  403: technical('provider_not_configured', 'The PayPal app is not allowed this call.'),
  404: technical('provider_rejected_request', 'PayPal does not know the order, authorization or capture.'),
  // A PayPal-Request-Id still in use by the first request: what became of it is unknown.
  409: open('provider_unknown_outcome', 'PayPal is still processing the first request with this request id.'),
  422: technical('provider_rejected_request', 'PayPal could not perform the request.'),
  429: rule('technical', 'provider_rate_limited', 'PayPal refused the request for its rate limit; nothing was processed.', 'provider_unavailable'),
  500: open('provider_unknown_outcome', 'PayPal answered with a server error; the outcome is indeterminate.'),
  503: open('provider_unknown_outcome', 'PayPal was unavailable; the outcome is indeterminate.'),
};

/** Conditions of our own that PayPal never answered, or answers outside the tables above. */
export const CONDITIONS = {
  missing_credentials: rule('technical', 'provider_not_configured', 'The PayPal account has no usable credentials (client id and secret).', 'provider_unavailable'),
  amount_not_representable: policy('amount_not_supported', 'PayPal cannot carry this amount exactly in this currency.'),
  method_not_supported: policy('method_not_supported', 'PayPal takes wallet payments only.'),
  // Without the merchant's page nobody could come back from PayPal's approval: another provider may not need one.
  no_return_url: technical('action_not_supported', 'PayPal needs the payment\'s return_url to send the customer back after approval.'),
  no_approval_link: technical('action_not_supported', 'PayPal answered without an approval link for the customer.'),
  // Asked about long after the approval window, the order was never approved: it lapses, nothing was taken (decisions.md).
  approval_lapsed: technical('payment_cancelled', 'The customer did not approve the PayPal order in time; nothing was taken.'),
  declined: soft('wallet_declined', 'PayPal declined the payment without a reason.'),
  denied: hard('payment_denied', 'PayPal denied the payment.'),
  cancelled: technical('payment_cancelled', 'The PayPal order or authorization was voided or expired.'),
  pending: open('provider_unknown_outcome', 'PayPal is still processing the payment.'),
  unreadable: open('provider_unknown_outcome', 'PayPal\'s answer could not be read; the outcome is indeterminate.'),
  connection: rule('technical', 'provider_timeout', 'PayPal could not be reached or did not answer in time.', 'timeout'),
} as const satisfies Record<string, PayPalRule>;

/** The parts of a PayPal error the tables read: HTTP status (0 when nothing answered), name and first issue. */
export interface PayPalErrorLike {
  status: number;
  name?: string;
  issue?: string;
}

/**
 * The rule for an error: no answer or a time-out is a time-out; a 5xx stays open (it may have
 * charged) unless its name says more; otherwise the issue, then the name, then the status.
 */
export function ruleFor(e: PayPalErrorLike): PayPalRule {
  if (e.status >= 200 && e.status < 300) return CONDITIONS.unreadable;
  if (e.status === 0 || e.status === 408) return CONDITIONS.connection;
  if (e.status >= 500) return (e.name !== undefined && NAMES[e.name]?.outcome === 'unknown' && NAMES[e.name]) || HTTP_STATUSES[e.status] || HTTP_STATUSES[500];
  return (e.issue !== undefined && ISSUES[e.issue]) || (e.name !== undefined && NAMES[e.name]) || HTTP_STATUSES[e.status] || HTTP_STATUSES[422];
}
