// Stored payment methods: the payment_methods table, PaymentMethodsService, and the check that a
// payment's payment_method.id names an active method of its own scope and type; its credentials
// (credentials.ts), which accounts they reach (eligibility.ts) and what a stored card says about
// itself (stored-card.ts). Tokens are sealed at rest (token-box.ts).
export { paymentMethodRoutes, paymentMethodToProto, resolveStoredMethod } from './service.js';
export { storedCardFacts } from './stored-card.js';
export { createTokenBox, type TokenBox } from './token-box.js';
export { createPaymentMethodStore, type CredentialRecord, type PaymentMethodRecord, type PaymentMethodStore } from './store.js';
export {
  oneOffCredential, storedCredentials, type IssuerOf, type PaymentCredentials, type VaultIssuers, type VaultRoute,
} from './eligibility.js';
