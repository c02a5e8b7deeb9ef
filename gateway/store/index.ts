// Postgres access of the gateway (schema `gateway`), one file per topic.
import type { Pool } from '../../services/platform/db.js';
import { createAddressThrottleStore } from './address-throttle.js';
import { createAllowlistStore } from './allowlists.js';
import { createIdempotencyStore } from './idempotency.js';
import type { AdmissionChange } from './admission-change.js';
import { createKeyStore } from './keys.js';
import { createMailThrottleStore } from './mail-throttle.js';
import { createMailedLinkStore } from './mailed-links.js';
import { createOperatorConsoleStore } from './operator-console.js';
import { createOperatorSessionStore } from './operator-sessions.js';
import { createOverviewStore } from './overview.js';
import { createOwnerLinkStore } from './owner-links.js';
import { createRateLimitStore } from './rate-limits.js';
import { createRegistrationStore } from './registrations.js';
import { createRequestLogStore } from './request-log.js';
import { createSessionStore } from './sessions.js';
import { createSignInThrottleStore } from './sign-in-throttle.js';
import { createSweepStore } from './sweep.js';
import { createTeamStore } from './team.js';
import { createStreamGrantStore } from './stream-grants.js';
import { createUserStore } from './users.js';
import { createVerificationStore } from './verification.js';

export type { AllowlistView } from './allowlists.js';
export type { ClaimResult, IdempotencyScope } from './idempotency.js';
export type { ApiKeyView, Identity, Mode } from './keys.js';
export { KEY_PREFIX } from './keys.js';
export type { MerchantStatus, MerchantView, ModeView, ProjectStatus, ProjectView } from './overview.js';
export type { CountedMinute, KeyWithRateLimit, WindowRow } from './rate-limits.js';
export { ADMISSION_CHANNEL, createKeyCache, parseChange, type KeyCache } from './key-cache.js';
export type { AdmissionChange } from './admission-change.js';
export type { RequestLogEntry } from './request-log.js';
export { REQUEST_LOG_KEEP } from './request-log.js';
export type { InvitationView } from './mailed-links.js';
export { verificationStatus, type VerificationStatus } from '../../services/contract/verification-status.js';
export type { AuditEntryView, OperatorMerchantView, RequestLogView, VerificationSubmissionView } from '../../services/contract/dashboard-views.js';
export { runWithAuditAddress } from './audit-address.js';
export type { SessionContext } from './sessions.js';
export type { MemberView, Role, UserRow } from './users.js';
export { userActor } from './users.js';
export type { VerificationDetails, VerificationView } from './verification.js';

/**
 * `changed` hears this process's own changes to what admission reads, once committed, so its key
 * cache drops them before the change is answered (the other replicas hear them by notification).
 */
export function createStore(pool: Pool, changed?: (change: AdmissionChange) => void) {
  return {
    ...createKeyStore(pool, changed),
    ...createIdempotencyStore(pool),
    ...createRateLimitStore(pool, changed),
    ...createAllowlistStore(pool, changed),
    ...createOverviewStore(pool),
    ...createRequestLogStore(pool),
    ...createStreamGrantStore(pool),
    // The dashboard's users, sessions and what it mails (gateway/dashboard/).
    ...createUserStore(pool),
    ...createSessionStore(pool),
    ...createMailedLinkStore(pool),
    ...createSignInThrottleStore(pool),
    ...createAddressThrottleStore(pool),

    // Mailed links and team: registration by link, the mail budget, the sweep, removals.
    ...createRegistrationStore(pool),
    ...createMailThrottleStore(pool),
    ...createSweepStore(pool),
    ...createTeamStore(pool),
    ...createVerificationStore(pool),
    // Owner sign-in links of merchants made without a person (npm start's first merchant).
    ...createOwnerLinkStore(pool),
    // The dashboard's operator console: its sessions and what it reads.
    ...createOperatorSessionStore(pool),
    ...createOperatorConsoleStore(pool),
  };
}

export type GatewayStore = ReturnType<typeof createStore>;
