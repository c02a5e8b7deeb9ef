// Stored payment methods: the payment_methods table, PaymentMethodsService, and the check that a
// payment's payment_method.id names an active method of its own scope and type.
export { paymentMethodRoutes, paymentMethodToProto, resolveStoredMethod } from './service.js';
export { createPaymentMethodStore, type PaymentMethodRecord, type PaymentMethodStore } from './store.js';
