// Late charges: a provider's success for an attempt recorded failed, returned at that provider.
export { createLateCharges, returnOperationId, type LateCharges } from './returns.js';
export type { LateCharge } from './store.js';
