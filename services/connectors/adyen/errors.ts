// Adyen's answers normalised AS DATA: each refusalReasonCode, resultCode, API errorCode, HTTP
// status and transport condition maps to the contract's failure category, our failure code and
// message, whether failover may try the next provider, and the attempt outcome the orchestrator
// acts on. README.md prints these tables; errors.test.ts checks them row by row.
import { hard, open, policy, rule, soft, technical, type ErrorRule } from '../error-rules.js';

export type AdyenRule = ErrorRule & {
  /** Adyen's refusalReason text for this code, as the AUTHORISATION notification's `reason` carries it. */
  reason?: string;
};

const DECLINED = 'The card was declined by its issuer';
const said = (reason: string, r: ErrorRule): AdyenRule => ({ ...r, reason });

/** A refused payment by `refusalReasonCode` (https://docs.adyen.com/development-resources/refusal-reasons). */
export const REFUSAL_REASONS: Readonly<Record<string, AdyenRule>> = {
  2: said('Refused', soft('card_declined', `${DECLINED} without a reason.`)),
  3: said('Referral', soft('card_declined', `${DECLINED}; the issuer asks for a referral.`, 'generic_decline')),
  4: said('Acquirer Error', technical('provider_error', 'The acquirer could not process the payment; nobody was charged.')),
  5: said('Blocked Card', hard('card_restricted', 'The card is blocked.')),
  6: said('Expired Card', hard('card_expired', 'The card has expired.')),
  7: said('Invalid Amount', hard('amount_not_allowed', 'The issuer refused the amount.')),
  8: said('Invalid Card Number', hard('invalid_card_details', 'The card number is invalid.', 'incorrect_number')),
  9: said('Issuer Unavailable', soft('issuer_unavailable', 'The card issuer could not be reached.')),
  10: said('Not supported', policy('card_not_supported', 'The issuer does not support this kind of payment at this provider.')),
  11: said('3D Not Authenticated', hard('authentication_failed', 'The customer did not complete 3-D Secure authentication.')),
  12: said('Not enough balance', hard('insufficient_funds', 'The card has insufficient funds.')),
  14: said('Acquirer Fraud', hard('suspected_fraud', 'The acquirer declined the payment as suspected fraud.')),
  15: said('Cancelled', technical('payment_cancelled', 'The payment was cancelled at Adyen before it was processed.')),
  16: said('Shopper Cancelled', hard('cancelled_by_customer', 'The customer cancelled the payment.')),
  17: said('Invalid Pin', hard('invalid_card_details', 'The card\'s PIN is incorrect.', 'incorrect_pin')),
  18: said('Pin tries exceeded', hard('card_restricted', 'The card\'s PIN was entered wrongly too often.', 'incorrect_pin')),
  19: said('Pin validation not possible', soft('issuer_unavailable', 'The issuer could not validate the PIN.')),
  20: said('FRAUD', hard('suspected_fraud', 'Adyen\'s risk checks declined the payment as suspected fraud.')),
  21: said('Not Submitted', technical('provider_error', 'Adyen did not submit the payment to the issuer; nobody was charged.')),
  22: said('FRAUD-CANCELLED', hard('suspected_fraud', 'The payment was cancelled as suspected fraud.')),
  23: said('Transaction Not Permitted', soft('card_declined', `${DECLINED} for this kind of transaction.`, 'transaction_not_allowed')),
  24: said('CVC Declined', hard('invalid_card_details', 'The card\'s security code is incorrect.', 'incorrect_cvc')),
  25: said('Restricted Card', hard('card_restricted', 'The card may not be used for this payment.')),
  26: said('Revocation Of Auth', hard('card_restricted', 'The customer revoked this merchant\'s authorization.', 'authorization_revoked')),
  27: said('Declined Non Generic', soft('card_declined', `${DECLINED} (do not honor).`, 'do_not_honor')),
  28: said('Withdrawal amount exceeded', hard('limit_exceeded', 'The card has exceeded its amount limit.')),
  29: said('Withdrawal count exceeded', hard('limit_exceeded', 'The card has exceeded its transaction count.')),
  31: said('Issuer Suspected Fraud', hard('suspected_fraud', 'The issuer declined the payment as suspected fraud.')),
  32: said('AVS Declined', hard('invalid_card_details', 'The billing address does not match the card\'s.', 'incorrect_address')),
  33: said('Card requires online pin', soft('authentication_required', 'The issuer requires the card\'s PIN.')),
  34: said('No checking account available on Card', hard('invalid_card_details', 'The card has no checking account.')),
  35: said('No savings account available on Card', hard('invalid_card_details', 'The card has no savings account.')),
  36: said('Mobile pin required', soft('authentication_required', 'The issuer requires the customer\'s mobile PIN.')),
  38: said('Authentication required', soft('authentication_required', 'The issuer requires the customer to authenticate (3-D Secure).')),
  39: said('RReq not received from DS', soft('issuer_unavailable', 'The 3-D Secure directory server did not answer.')),
  42: said('3DS Authentication Error', soft('authentication_error', '3-D Secure authentication failed with an error.')),
};

/** A payment by `resultCode` when no refusalReasonCode says more (only the failing ones are rows). */
export const RESULT_CODES: Readonly<Record<string, AdyenRule>> = {
  Refused: REFUSAL_REASONS[2],
  Error: technical('provider_error', 'Adyen reported an error processing the payment; nobody was charged.'),
  Cancelled: REFUSAL_REASONS[15],
  Pending: open('provider_unknown_outcome', 'Adyen has not decided the payment yet; its notification will.'),
  Received: open('provider_unknown_outcome', 'Adyen received the payment and has not decided it yet; its notification will.'),
  PartiallyAuthorised: open('provider_unknown_outcome', 'Adyen authorised only part of the amount.'),
};

/** An API error by its `errorCode` (https://docs.adyen.com/development-resources/error-codes). */
export const ERROR_CODES: Readonly<Record<string, AdyenRule>> = {
  // "Unknown: Unauthorised" among others: the key or the request; nobody was charged.
  '000': technical('provider_rejected_request', 'Adyen rejected the request.'),
  '010': technical('provider_auth_failed', 'This account\'s API credential may not make this request at Adyen.'),
  100: technical('provider_rejected_request', 'Adyen rejected the request: a required field is missing.'),
  101: hard('invalid_card_details', 'The card number is invalid.', 'incorrect_number'),
  102: hard('invalid_card_details', 'The card number is invalid.', 'incorrect_number'),
  103: hard('invalid_card_details', 'The card\'s security code is invalid.', 'incorrect_cvc'),
  // "Request already processed or in progress": the first request of this key is still running.
  704: open('provider_unknown_outcome', 'Adyen is still processing the first request of this attempt.'),
  901: technical('provider_auth_failed', 'The merchant account is not valid for this API credential at Adyen.'),
};

/** By HTTP status when the errorCode is not listed. */
export const HTTP_STATUSES: Readonly<Record<string, AdyenRule>> = {
  400: technical('provider_rejected_request', 'Adyen could not read the request.'),
  401: technical('provider_auth_failed', 'Adyen refused this account\'s API key.'),
  403: technical('provider_auth_failed', 'This account\'s API key may not make this request at Adyen.'),
  404: technical('provider_rejected_request', 'Adyen does not know the requested resource.'),
  422: technical('provider_rejected_request', 'Adyen rejected the request.'),
  429: rule('technical', 'provider_rate_limited', 'Adyen refused the request for its rate limit; nothing was processed.', 'provider_unavailable'),
  // "Our servers may return a 500 status code also when the request is incorrect": indeterminate.
  500: open('provider_unknown_outcome', 'Adyen answered with a server error; the outcome is indeterminate.'),
  502: open('provider_unknown_outcome', 'Adyen\'s gateway answered with an error; the outcome is indeterminate.'),
  503: open('provider_unknown_outcome', 'Adyen was unavailable; the outcome is indeterminate.'),
  504: open('provider_unknown_outcome', 'Adyen\'s gateway timed out; the outcome is indeterminate.'),
};

/** Conditions of our own that Adyen never answered, or answers outside the tables above. */
export const CONDITIONS = {
  // A 2xx answer the library could not read (empty, truncated, not JSON): the provider may have acted.
  unreadable: open('provider_unknown_outcome', 'Adyen\'s answer could not be read; the outcome is indeterminate.'),
  missing_credentials: rule('technical', 'provider_not_configured', 'The Adyen account has no usable credentials (API key, merchant account, and for live its live URL prefix).', 'provider_unavailable'),
  amount_not_representable: policy('amount_not_supported', 'Adyen cannot carry this amount exactly in this currency.'),
  unusable_token: technical('payment_method_unknown', 'The payment method token is not an Adyen payment method.'),
  // Routing chose a vault this deployment has no forwarder for: nothing was sent.
  vault_not_connected: rule('technical', 'vault_unavailable', 'The vault that would forward the card to Adyen is not available.', 'provider_unavailable'),
  unsupported_action: technical('action_not_supported', 'Adyen asked for a customer action that has no page to send the customer to.'),
  // Adyen's Transient-Error: true header: "retry the request with the same idempotency key".
  transient: open('provider_unknown_outcome', 'Adyen reported a transient error; the request may be repeated with its key.'),
  // The Checkout API has no lookup by reference: without the method's token only the notification tells.
  awaiting_notification: open('provider_unknown_outcome', 'Adyen has no lookup by reference; its AUTHORISATION notification decides the attempt.'),
  unexpected_result: open('provider_unknown_outcome', 'Adyen answered a result that decides nothing yet.'),
  connection: rule('technical', 'provider_timeout', 'Adyen could not be reached or did not answer in time.', 'timeout'),
} as const satisfies Record<string, AdyenRule>;

/** The parts of an Adyen answer or error the tables read. */
export interface AdyenAnswerLike {
  resultCode?: string;
  refusalReasonCode?: string;
  refusalReason?: string;
  /** An HTTP error's status and Adyen errorCode. */
  status?: number;
  errorCode?: string;
  transient?: boolean;
}

/**
 * The rule for a failed answer: a refused payment by refusalReasonCode, then its refusalReason
 * text (notifications carry only that), then resultCode; an HTTP error by transience, a 5xx
 * status, errorCode, then status. Anything unlisted stays open: it may have charged.
 */
export function ruleFor(a: AdyenAnswerLike): AdyenRule {
  if (a.status !== undefined) {
    if (a.status >= 200 && a.status < 300) return CONDITIONS.unreadable;
    if (a.transient) return CONDITIONS.transient;
    // A server error is indeterminate whatever its errorCode (000 is also "Unauthorised").
    if (a.status >= 500) return HTTP_STATUSES[a.status] ?? HTTP_STATUSES[500];
    return (a.errorCode !== undefined && ERROR_CODES[a.errorCode]) || HTTP_STATUSES[a.status]
      || (a.status >= 400 && a.status < 500 ? HTTP_STATUSES[422] : HTTP_STATUSES[500]);
  }
  if (a.resultCode === 'Refused' || a.refusalReasonCode || a.refusalReason) {
    const byCode = a.refusalReasonCode !== undefined ? REFUSAL_REASONS[a.refusalReasonCode] : undefined;
    if (byCode) return byCode;
    const text = a.refusalReason?.toLowerCase();
    const byText = text ? Object.values(REFUSAL_REASONS).find((r) => r.reason!.toLowerCase() === text) : undefined;
    if (byText) return byText;
  }
  return (a.resultCode !== undefined && RESULT_CODES[a.resultCode]) || (a.resultCode === undefined && a.refusalReason
    ? RESULT_CODES.Refused : CONDITIONS.unexpected_result);
}
