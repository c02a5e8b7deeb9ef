// The merchant dashboard's own API, under /dashboard/api, session-authenticated and separate from
// /v1 (API keys only). It offers:
//   - users, registration confirmed by a mailed link (merchant, default project, test mode at once),
//     sign-in with a throttle, sessions in an HttpOnly cookie, CSRF tokens, sign-out (everywhere),
//     password reset by mail; mail only to PUBLIC_BASE_URL links, within a budget per address;
//   - owner sign-in links, printed (never mailed) for a merchant made without a person;
//   - roles of a merchant's members (owner, developer, read-only), invitations, removing members
//     and revoking invitations; a periodic sweep of expired links and throttle rows; the mail to owners
//     when the webhooks part disabled a failing endpoint (endpoint-notices.ts), and the reminder of a
//     dispute's evidence deadline that payments issued (dispute-reminders.ts);
//   - API keys, webhook endpoints and deliveries, the IP allow-list (and a check, before saving, of
//     whether a list would refuse the member's own address), provider accounts (the management
//     API's handlers); routing rules with their A/B reports, and changes of their strategy and variant;
//   - payments, refunds, payouts and the ledger's lists (the /v1 handlers, for the session's scope),
//     their CSV exports, and the request log of recent /v1 calls;
//   - business verification submissions;
//   - the operator console: operators sign in with OPERATOR_TOKEN (a session of their own), list
//     merchants, approve or reject verifications, read the audit log.
// The endpoints are listed in docs/dashboard.md; the front end lives in dashboard/ at the repository root.
export { dashboardApiScope } from './scope.js';
export type { DashboardDeps } from './context.js';
export { configuredMailer, consoleMailer, logMailer, mailWarnings } from './mailer.js';
export type { MailMessage, Mailer } from './mail-message.js';
export { afterAnswer } from './after-answer.js';
export { startDashboardSweep } from './sweep.js';
export { issueOwnerLink, type IssuedOwnerLink } from './owner-links.js';
export { startEndpointNotices } from './endpoint-notices.js';
export { startDisputeReminders } from './dispute-reminders.js';
