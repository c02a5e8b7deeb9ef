// The public contract, declared once: what merchants are promised. It imports no platform file, so
// anything may import it. Its enumerations (enums.ts), the JSON schemas of requests and resources
// (requests.ts, resources.ts, built with components.ts), the /v1 operation table and the OpenAPI
// document made from it (operations.ts, openapi.ts), and the serialisers that give each resource
// its JSON shape for the REST API and webhook events alike. The gateway imports the table and the
// document by file; the parts import what is below. Also here: the error registry (errors.ts), the
// input limits (limits.ts), the event envelope (envelope.ts) and the fee formula (fees.ts). By path
// only: project-caps.ts (the documented per-project caps), provider-facts.ts (what a provider
// is, as routing-risk and the tools learn it), allowlist-entry.ts (what an IP allow-list entry is,
// for the gateway and the CLI) and ip-address.ts (addresses and CIDR ranges parsed and matched);
// the last two use node:net, which the dashboard lacks.
export * from './errors.js';
export * from './limits.js';
export * from './envelope.js';
export * from './fees.js';
export { paymentJson } from './payment.js';
export { failedAfterAcceptance, REFUND_FAILED_AFTER_ACCEPTANCE, refundJson } from './refund.js';
export { disputeDocumentJson, disputeJson, disputeSummaryJson } from './dispute.js';
export { evidenceDaysLeft, REMINDER_DAYS } from './dispute-deadline.js';
export { paymentMethodCredentialJson, paymentMethodJson } from './payment-method.js';
export { transactionJson } from './transaction.js';
export { balanceJson, balancesJson } from './balance.js';
export { settlementJson, settlementItemJson } from './settlement.js';
export {
  containsAccountNumber, payoutFreeTextAccountField, payoutJson, rawAccountNumberField, type DestinationInput,
} from './payout.js';
export { refuseUnsafeRequest } from './internal-requests.js';
export type {
  CancelRequestJson, CaptureRequestJson, CreatePaymentRequestJson, CreatePayoutRequestJson, RefundRequestJson,
} from './requests.js';
export {
  formatMoney, fractionDigits, minorFromColumn, minorFromJson, minorToJson, type Minor,
} from './money.js';
export {
  containsCardNumber, findCardData, isCardFieldName, looksLikeCardNumber, normaliseText, passesLuhn,
} from './card-data.js';
export * from './enums.js';
export { DECLINE_REASON_TEXT, DECLINE_REASONS, isDeclineOutcome, isDeclineReason, type DeclineReason } from './decline-reasons.js';
export { contractEvent, type ContractEvent, type EventObject } from './events.js';
export type {
  AttemptJson, BalanceJson, BalancesJson, DisputeDocumentJson, DisputeJson, DisputeSummaryJson, FailureJson, PaymentJson, PaymentMethodCredentialJson, PaymentMethodJson, PayoutJson, RefundJson,
  SettlementJson, SettlementWithItemsJson, TransactionJson,
} from './resources.js';
