// The contract's JSON shapes of resources, shared by the REST API and webhook events.
export { paymentJson } from './payment.js';
export { refundJson } from './refund.js';
export { paymentMethodJson } from './payment-method.js';
