// The contract's JSON shapes of resources, shared by the REST API and webhook events.
export { paymentJson } from './payment.js';
export { refundJson } from './refund.js';
export { paymentMethodJson } from './payment-method.js';
export { transactionJson } from './transaction.js';
export { balanceJson, balancesJson } from './balance.js';
export { settlementJson, settlementItemJson } from './settlement.js';
export {
  containsAccountNumber, payoutFreeTextAccountField, payoutJson, rawAccountNumberField, type DestinationInput,
} from './payout.js';
export { refuseUnsafeRequest } from './internal-requests.js';
export {
  containsCardNumber, findCardData, isCardFieldName, looksLikeCardNumber, normaliseText, passesLuhn,
} from './card-data.js';
