// Provider settlements: the batches a licensed provider settled for an account, read by its
// connector from an uploaded report (Adyen) or the provider's API (Stripe), for the ledger's ingestion.
export { providerSettlementRoutes, settlementMessages } from './service.js';
export { createSettlementLookups, type SettlementLookups } from './store.js';
