import { ConfigError, int, key32, originList, str, type Env } from './parse.js';

// The payments part's settings: provider calls and their deadlines, the sweeps and syncs it runs,
// and the keys and address allow-list of provider accounts.

export interface PaymentsSettings {
  /** Deadline of one call to a payment provider; past it the provider is asked for the outcome. */
  providerTimeoutMs: number;
  /** A manual-capture authorization not captured within this long is cancelled. */
  authorizationTtlHours: number;
  /** How often the payments part looks for expired authorizations. */
  expirySweepMs: number;
  /** How long a customer action (redirect, QR, bank transfer page) waits before the payment fails. */
  customerActionTtlMinutes: number;
  /** How long payment.created may wait in the outbox for its request's outcome (PAYMENT_CREATED_HOLD_MS). */
  paymentCreatedHoldMs: number;
  /** How often payments asks providers about attempts whose outcome is still open. */
  reconciliationSweepMs: number;
  /**
   * How often payments syncs the settlements of each connected, active account of every provider
   * that lists them (its definition's settlementSync) into the ledger; 0 = never.
   */
  settlementSyncIntervalMs: number;
  /** How often each connected account's disputes are asked for (jobs/dispute-sync.ts); 0 off. */
  disputeSyncIntervalMs: number;
  /**
   * 32-byte key that encrypts provider accounts' credentials and stored methods' tokens; unset:
   * connecting a provider is refused and tokens are kept unencrypted.
   */
  providerSecretKey?: Buffer;
  /** PROVIDER_SECRET_KEY_OTHER: a second key opened with, never sealed with, during a rotation (docs/operations.md). */
  providerSecretKeyOther?: Buffer;
  /**
   * Origins of provider base URLs the operator vouches for (PROVIDER_BASE_URL_ALLOWLIST): accepted as
   * written in any mode. Any other api_base_url must be https on a public host. Empty by default.
   */
  providerBaseUrlAllowlist: string[];
}

export function paymentsSettings(env: Env): PaymentsSettings {
  if (str(env, 'PROVIDER_SECRET_KEY_OTHER') !== undefined && str(env, 'PROVIDER_SECRET_KEY') === undefined) {
    throw new ConfigError('PROVIDER_SECRET_KEY_OTHER', 'is the second key of a rotation: set PROVIDER_SECRET_KEY too');
  }
  return {
    providerTimeoutMs: int(env, 'PROVIDER_TIMEOUT_MS'),
    // Card schemes hold funds for at most about 30 days; a longer hold is never honoured upstream.
    authorizationTtlHours: int(env, 'AUTHORIZATION_TTL_HOURS'),
    expirySweepMs: int(env, 'EXPIRY_SWEEP_MS'),
    customerActionTtlMinutes: int(env, 'CUSTOMER_ACTION_TTL_MINUTES'),
    reconciliationSweepMs: int(env, 'RECONCILIATION_SWEEP_MS'),
    paymentCreatedHoldMs: int(env, 'PAYMENT_CREATED_HOLD_MS'),
    settlementSyncIntervalMs: int(env, 'SETTLEMENT_SYNC_INTERVAL_MS'),
    disputeSyncIntervalMs: int(env, 'DISPUTE_SYNC_INTERVAL_MS'),
    providerSecretKey: key32(env, 'PROVIDER_SECRET_KEY'),
    providerSecretKeyOther: key32(env, 'PROVIDER_SECRET_KEY_OTHER'),
    providerBaseUrlAllowlist: originList(env, 'PROVIDER_BASE_URL_ALLOWLIST'),
  };
}
