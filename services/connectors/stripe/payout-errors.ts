// Stripe's payout answers normalised AS DATA: each payout failure_code (a payout Stripe accepted
// and the bank later returned), each error code and error type of the create call, and our own
// conditions map to the payout outcome, the contract's failure category, our failure code and
// message. docs/connectors.md ("Payouts") prints this table; payout-errors.test.ts checks it.
import type { FailureCategory } from '../../contract/enums.js';
import type { ConnectorFailure, PayoutOutcome } from '../types.js';

export interface PayoutRule extends ConnectorFailure {
  outcome: PayoutOutcome;
}

const rule = (outcome: PayoutOutcome, category: FailureCategory, code: string, message: string): PayoutRule =>
  ({ outcome, category, code, message });
// About the beneficiary's account: any provider would get the same answer.
const hard = (code: string, message: string) => rule('hard_decline', 'hard', code, message);
// About this Stripe account or what it may send: nothing was sent, another route might work.
const policy = (code: string, message: string) => rule('technical_error', 'policy', code, message);
const technical = (code: string, message: string) => rule('technical_error', 'technical', code, message);
// Stripe may have acted: the payout stays processing and the status query decides.
const open = (code: string, message: string) => rule('timeout', 'technical', code, message);

const DETAILS = 'The beneficiary\'s bank details are wrong';

/** A failed payout by its `failure_code` (https://docs.stripe.com/api/payouts/failures). */
export const FAILURE_CODES: Readonly<Record<string, PayoutRule>> = {
  account_closed: hard('account_closed', 'The beneficiary\'s bank account is closed.'),
  account_frozen: hard('account_frozen', 'The beneficiary\'s bank account is frozen.'),
  bank_account_restricted: hard('account_restricted', 'The beneficiary\'s bank account does not accept this payout.'),
  bank_ownership_changed: hard('beneficiary_changed', 'The beneficiary\'s bank account changed owner.'),
  could_not_process: technical('provider_error', 'The bank could not process the payout; the funds returned.'),
  debit_not_authorized: hard('account_restricted', 'The beneficiary\'s bank account does not allow this transfer.'),
  declined: hard('payout_declined', 'The beneficiary\'s bank declined the payout.'),
  incorrect_account_holder_address: hard('invalid_beneficiary_details', `${DETAILS} (holder address).`),
  incorrect_account_holder_name: hard('invalid_beneficiary_details', `${DETAILS} (holder name).`),
  incorrect_account_holder_tax_id: hard('invalid_beneficiary_details', `${DETAILS} (holder tax id).`),
  incorrect_account_type: hard('invalid_beneficiary_details', `${DETAILS} (account type).`),
  invalid_account_number: hard('invalid_beneficiary_details', `${DETAILS} (account number).`),
  invalid_account_number_length: hard('invalid_beneficiary_details', `${DETAILS} (account number length).`),
  no_account: hard('account_not_found', 'The beneficiary\'s bank account does not exist.'),
  insufficient_funds: policy('provider_balance_insufficient', 'The Stripe account\'s balance could not cover the payout.'),
  invalid_currency: policy('currency_not_supported', 'The beneficiary\'s bank account cannot take this currency.'),
  unsupported_card: policy('destination_not_supported', 'The card cannot receive payouts.'),
};

/** The create call's errors by `code` (https://docs.stripe.com/error-codes). */
export const ERROR_CODES: Readonly<Record<string, PayoutRule>> = {
  balance_insufficient: FAILURE_CODES.insufficient_funds,
  resource_missing: technical('beneficiary_unknown', 'Stripe does not know this destination for the account.'),
  payouts_not_allowed: policy('payouts_not_allowed', 'Payouts are not enabled for this Stripe account.'),
  amount_too_small: policy('amount_not_supported', 'The amount is below Stripe\'s payout minimum.'),
  amount_too_large: policy('amount_not_supported', 'The amount is above Stripe\'s payout maximum.'),
  parameter_invalid_integer: technical('provider_rejected_request', 'Stripe rejected the request.'),
  parameter_missing: technical('provider_rejected_request', 'Stripe rejected the request.'),
  idempotency_key_in_use: open('provider_unknown_outcome', 'Stripe is still processing the first request of this payout.'),
  rate_limit: rule('provider_unavailable', 'technical', 'provider_rate_limited', 'Stripe refused the request for its rate limit; nothing was sent.'),
  lock_timeout: rule('provider_unavailable', 'technical', 'provider_rate_limited', 'Stripe could not lock the balance; nothing was sent.'),
};

/** By the SDK's error type when the code says nothing more. */
export const ERROR_TYPES: Readonly<Record<string, PayoutRule>> = {
  StripeInvalidRequestError: technical('provider_rejected_request', 'Stripe rejected the request.'),
  StripeAuthenticationError: technical('provider_auth_failed', 'Stripe refused this account\'s secret key.'),
  StripePermissionError: technical('provider_auth_failed', 'This account\'s key may not send payouts at Stripe.'),
  StripeRateLimitError: ERROR_CODES.rate_limit,
  StripeIdempotencyError: open('provider_unknown_outcome', 'Stripe holds this payout\'s key with other parameters.'),
  StripeAPIError: open('provider_unknown_outcome', 'Stripe answered with a server error; the outcome is indeterminate.'),
  StripeConnectionError: open('provider_timeout', 'Stripe could not be reached or did not answer in time.'),
};

/** Conditions of our own that Stripe never answered. */
export const CONDITIONS = {
  missing_credentials: rule('provider_unavailable', 'technical', 'provider_not_configured', 'The Stripe account has no stored credentials.'),
  amount_not_representable: policy('amount_not_supported', 'Stripe cannot pay out this amount exactly in this currency.'),
  destination_not_supported: policy('destination_not_supported', 'Stripe pays out to bank accounts and debit cards only.'),
  canceled: technical('payout_canceled', 'The payout was canceled at Stripe; the funds returned.'),
  failed: hard('payout_failed', 'The payout failed at the beneficiary\'s bank.'),
} as const satisfies Record<string, PayoutRule>;

/** The rule for a create error: code first, then the SDK's type; anything unknown is indeterminate. */
export function payoutRuleFor(err: { type?: string; code?: string | null }): PayoutRule {
  if (err.code && ERROR_CODES[err.code]) return ERROR_CODES[err.code];
  if (err.type && ERROR_TYPES[err.type]) return ERROR_TYPES[err.type];
  return ERROR_TYPES.StripeAPIError;
}
