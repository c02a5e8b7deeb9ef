// Request schemas: the contract's field rules. Bodies are strict (unknown fields refused);
// queries arrive as strings and are coerced where a number is expected.
import { anyOf, component, dateTime, enumOf, object, str, typed, type Schema, type Static } from './components.js';
import { MAX_DISPUTE_DOCUMENT_BYTES, METADATA_KEY_MAX_LENGTH, METADATA_MAX_KEYS, METADATA_VALUE_MAX_LENGTH, PAGE_LIMIT_SCHEMA } from './limits.js';
import {
  CAPTURE_METHODS, CREDENTIAL_TYPES, DESTINATION_TYPES, DISPUTE_STATUSES, EVENT_TYPES, PAYMENT_METHOD_TYPES, PAYMENT_SCENARIOS, PAYOUT_SCENARIOS,
  REFUND_SCENARIOS, TRANSACTION_TYPES, VAULTS,
} from './enums.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const amount = typed<number>({
  type: 'integer', minimum: 1, maximum: MAX_SAFE,
  description: 'An integer in the currency\'s minor unit (cents for EUR: 1000 is €10.00; yen for JPY).',
});
const currency = typed<string>({ type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code, e.g. EUR.' });
const country = typed<string>({ type: 'string', pattern: '^[A-Za-z]{2}$' });
const text = (maxLength: number) => typed<string>({ type: 'string', maxLength });
// Stripe's metadata rule (services/contract/limits.ts): it keeps every event far inside the bus's limit.
const metadata = component('Metadata', typed<Record<string, string>>({
  type: 'object',
  maxProperties: METADATA_MAX_KEYS,
  propertyNames: { type: 'string', minLength: 1, maxLength: METADATA_KEY_MAX_LENGTH },
  additionalProperties: { type: 'string', maxLength: METADATA_VALUE_MAX_LENGTH },
  description: `At most ${METADATA_MAX_KEYS} keys of at most ${METADATA_KEY_MAX_LENGTH} characters, each value a string of at most ${METADATA_VALUE_MAX_LENGTH} characters.`,
}));
const optional = <P extends Record<string, Schema>, K extends keyof P & string = never>(properties: P, required: readonly K[] = []) =>
  object(properties, required);

export const CustomerInput = component('CustomerInput', optional({
  id: str, external_id: str, email: typed<string>({ type: 'string', format: 'email' }), name: str, country,
}));

export const PaymentMethodInput = component('PaymentMethodInput', optional({
  type: enumOf(PAYMENT_METHOD_TYPES),
  token: str,
  id: typed<string>({ type: 'string', pattern: '^pm_' }),
  // The provider that issued `token`: the payment goes to that provider's accounts only.
  provider_code: typed<string>({ type: 'string', pattern: '^[a-z][a-z0-9_]{1,30}$' }),
}, ['type']));

export const CreatePaymentBody = component('CreatePaymentRequest', optional({
  amount,
  currency,
  payment_method: anyOf(enumOf(PAYMENT_METHOD_TYPES), PaymentMethodInput),
  capture_method: enumOf(CAPTURE_METHODS),
  country,
  customer: CustomerInput,
  description: text(500),
  reference: text(128),
  return_url: typed<string>({ type: 'string', format: 'uri' }),
  metadata,
  test_scenario: enumOf(PAYMENT_SCENARIOS),
  device: optional({ ip: str, user_agent: str, fingerprint: str }),
  // The customer is absent: needs a stored card method with a network transaction id.
  merchant_initiated: typed<boolean>({
    type: 'boolean',
    description: 'true when the customer is absent (a subscription renewal or agreed instalment): the payment must name a stored card '
      + '(payment_method.id) that a successful customer-present payment was made with; its network transaction id is sent to the provider.',
  }),
}, ['amount', 'currency', 'payment_method']), [
  { amount: 1000, currency: 'EUR', payment_method: 'card', description: 'Order 1042', test_scenario: 'success' },
]);

export const CaptureBody = component('CaptureRequest', optional({ amount }), [{ amount: 500 }]);
export const CancelBody = component('CancelRequest', optional({ reason: text(500) }), [{ reason: 'Order cancelled by the customer' }]);
export const RefundBody = component('CreateRefundRequest', optional({
  amount, reason: text(500), metadata, test_scenario: enumOf(REFUND_SCENARIOS),
}), [{ amount: 500, reason: 'Returned item' }]);

export const CreatePayoutBody = component('CreatePayoutRequest', optional({
  amount,
  currency,
  destination: optional({
    type: enumOf(DESTINATION_TYPES), token: str, display: str, holder_name: str, country,
  }, ['type', 'display']),
  description: text(500),
  reference: text(128),
  metadata,
  test_scenario: enumOf(PAYOUT_SCENARIOS),
}, ['amount', 'currency', 'destination']), [{
  amount: 5000, currency: 'EUR', reference: 'payout-2042',
  destination: { type: 'bank_account', token: 'ben_demo_1a2b3c', display: 'DE89 •••• 3000', holder_name: 'Ada Lovelace', country: 'DE' },
}]);

/**
 * The money-moving bodies as the gateway's handlers receive them, validated: typed from their
 * schemas above, so a field is declared once, where the contract's rule for it is.
 */
export type CreatePaymentRequestJson = Static<typeof CreatePaymentBody>;
export type CaptureRequestJson = Static<typeof CaptureBody>;
export type CancelRequestJson = Static<typeof CancelBody>;
export type RefundRequestJson = Static<typeof RefundBody>;
export type CreatePayoutRequestJson = Static<typeof CreatePayoutBody>;

export const CreatePaymentMethodBody = component('CreatePaymentMethodRequest', optional({
  type: enumOf(PAYMENT_METHOD_TYPES),
  provider_token: { type: 'string', minLength: 1 },
  provider_code: str,
  customer: CustomerInput,
  display: { type: 'object', additionalProperties: str, maxProperties: 20 },
}, ['type', 'provider_token']), [{ type: 'card', provider_token: 'tok_demo_visa', display: { brand: 'visa', last4: '4242' } }]);

// A provider_token names the provider that issued it (and the account, for account-bound tokens); a
// vault_token names its vault. Which accounts a payment may then use: docs/connectors.md, "Vaults".
export const AddCredentialBody = component('AddPaymentMethodCredentialRequest', optional({
  type: enumOf(CREDENTIAL_TYPES),
  token: { type: 'string', minLength: 1, maxLength: 16_384 },
  provider_code: { type: 'string', pattern: '^[a-z][a-z0-9_]{1,30}$' },
  provider_account_id: { type: 'string', pattern: '^pac_[a-z0-9]{1,64}$' },
  vault: enumOf(VAULTS),
}, ['type', 'token']), [
  { type: 'provider_token', token: '8415718415172200', provider_code: 'adyen' },
  { type: 'vault_token', token: 'pm_1QabcStripeVaulted', vault: 'stripe' },
]);

export const credentialParams = object({
  id: { type: 'string', minLength: 1, maxLength: 255 },
  credential: { type: 'string', minLength: 1, maxLength: 255 },
});

export const WebhookTestBody = component('WebhookTestRequest', optional({ event_type: enumOf(EVENT_TYPES) }), [{ event_type: 'payment.successful' }]);

export const idParams = object({ id: { type: 'string', minLength: 1, maxLength: 255 } });

const page = {
  limit: PAGE_LIMIT_SCHEMA,
  cursor: { type: 'string', minLength: 1, maxLength: 512 },
};

export const PaymentListQuery = optional({
  status: { type: 'string', maxLength: 500 },
  currency,
  country,
  payment_method: enumOf(PAYMENT_METHOD_TYPES),
  reference: { type: 'string', maxLength: 128 },
  search: { type: 'string', minLength: 1, maxLength: 200 },
  from: dateTime,
  to: dateTime,
  ...page,
});
export const PayoutListQuery = optional({ status: str, ...page });
export const TransactionListQuery = optional({
  type: enumOf(TRANSACTION_TYPES), status: str, currency, provider_account_id: str, from: dateTime, to: dateTime, ...page,
});
export const EventListQuery = optional({ type: enumOf(EVENT_TYPES), from: dateTime, to: dateTime, ...page });
export const SettlementListQuery = optional({ status: str, provider_account_id: str });

// A dispute's evidence: text bounded per field, documents named by the ids their upload answered.
const EVIDENCE_TEXT_MAX = 20_000;
const evidenceText = { type: 'string', maxLength: EVIDENCE_TEXT_MAX } as const;
export const DisputeEvidenceBody = component('DisputeEvidenceRequest', optional({
  product_description: evidenceText,
  customer_communication: evidenceText,
  shipping_carrier: { type: 'string', maxLength: 200 },
  shipping_tracking_number: { type: 'string', maxLength: 200 },
  refund_policy: evidenceText,
  uncategorized_text: evidenceText,
  documents: { type: 'array', maxItems: 10, items: { type: 'string', pattern: '^dpf_[0-9a-z]{26}$' } },
  submit: { type: 'boolean', default: false, description: 'true sends everything staged to the provider; false (default) only stages it.' },
}), [
  { shipping_carrier: 'DHL', shipping_tracking_number: 'JD014600003828374920', submit: false },
  { uncategorized_text: 'Delivered to the cardholder\'s address, signed for.', submit: true },
]);

/** A document's content: at most 4 MiB decoded, so at most this many base64 characters. */
const BASE64_MAX = Math.ceil(MAX_DISPUTE_DOCUMENT_BYTES / 3) * 4;
/** The upload's body limit: the base64 content and its fields (every other route keeps MAX_BODY_BYTES). */
export const DISPUTE_DOCUMENT_BODY_LIMIT = BASE64_MAX + 64 * 1024;
export const DisputeDocumentBody = component('DisputeDocumentRequest', optional({
  filename: { type: 'string', minLength: 1, maxLength: 255 },
  type: enumOf(['application/pdf', 'image/png', 'image/jpeg'] as const),
  content: {
    type: 'string', minLength: 4, maxLength: BASE64_MAX, pattern: '^[A-Za-z0-9+/]+={0,2}$',
    description: 'The file, base64-encoded (standard alphabet, padded); at most 4 MiB once decoded.',
  },
}, ['filename', 'type', 'content']), [{ filename: 'receipt.pdf', type: 'application/pdf', content: 'JVBERi0xLjQK' }]);

export const DisputeListQuery = optional({
  status: { type: 'string', maxLength: 200, description: `Comma-separated: ${DISPUTE_STATUSES.join(', ')}.` },
  payment_id: { type: 'string', minLength: 1, maxLength: 255 },
  from: dateTime,
  to: dateTime,
  ...page,
});
