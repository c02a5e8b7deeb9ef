// Late charges: a provider's success for an attempt recorded failed, returned at that provider.
export { lateSuccess, type LateSuccess } from './late-success.js';
export { createLateCharges, type LateCharges } from './returns.js';
export { lateChargeRows } from './store.js';
