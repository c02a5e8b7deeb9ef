// Licensed providers' disputes on the merchant's side: the accept and evidence calls of each
// connector that has them, as the disputes' action registry takes them (actions.ts). Their
// notifications come in through provider-notifications, and the scheduled sync is jobs/dispute-sync.ts.
export { providerDisputeActions } from './actions.js';
