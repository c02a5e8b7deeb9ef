// Late charges: a provider's success for an attempt recorded failed, returned at that provider.
export { lateSuccess, type LateSuccess } from './late-success.js';
export { createLateCharges, returnOperationId, type LateCharges } from './returns.js';
export { insertLateCharge, type LateCharge } from './store.js';
