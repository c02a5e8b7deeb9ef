// Refunds of completed payments: reserve, call the provider that took the payment, settle (and
// re-send those whose answer was lost, for reconciliation); the refunds table; RefundsService.
export { createRefunds, REFUND_SCENARIOS, refundToProto, type RefundInput, type Refunds } from './refunds.js';
export { refundRoutes } from './service.js';
export { createRefundStore, type RefundRecord } from './store.js';
