// Background jobs every replica of payments runs: authorization expiry and customer-action expiry
// (on the shared claim-and-change loop of sweep.ts), reconciliation of attempts and refunds
// whose outcome stayed open, the scheduled sync of Stripe's settlements into the ledger, the
// disputes' evidence-deadline reminders (with DisputeRemindersService, which hands them to the
// gateway), and the scheduled sync of providers' disputes (their lost notifications).
export { createAuthorizationExpiry, expiryCutoff, type AuthorizationExpiry } from './authorization-expiry.js';
export { createCustomerActionExpiry, type CustomerActionExpiry } from './customer-action-expiry.js';
export { createReconciliation } from './reconciliation.js';
export { createSettlementSync, type SettlementSync } from './settlement-sync.js';
export { createDisputeReminders, type DisputeReminders } from './dispute-reminders.js';
export { disputeReminderRoutes } from './dispute-reminder-routes.js';
export { createDisputeSync } from './dispute-sync.js';
