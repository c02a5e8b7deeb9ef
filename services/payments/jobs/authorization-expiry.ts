import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logger.js';
import { commitChange, expireAuthorization, type PaymentsStore } from '../payments/index.js';
import { createSweep } from './sweep.js';

/**
 * Cancels manual-capture authorizations nobody captured within the configured period, with
 * payment.cancelled. Every replica of payments runs this job (the shared loop in sweep.ts); a
 * merchant's concurrent capture or cancel either wins or gets 409.
 */

export interface AuthorizationExpiryDeps {
  store: PaymentsStore;
  clock: Clock;
  relay: { kick(): void };
  logger: Logger;
  ttlHours: number;
  intervalMs: number;
  /** Payments per transaction: bounds how long one sweep holds row locks. */
  batchSize?: number;
}

/** The moment before which an authorization granted is due: `now` minus the TTL. */
export function expiryCutoff(now: Date, ttlHours: number): Date {
  return new Date(now.getTime() - ttlHours * 3_600_000);
}

export function createAuthorizationExpiry(deps: AuthorizationExpiryDeps) {
  const loop = createSweep({ ...deps, name: 'authorization expiry' }, async (tx, now, limit) => {
    const due = await deps.store.claimExpiredAuthorizations(tx, expiryCutoff(now, deps.ttlHours), limit);
    for (const payment of due) {
      await commitChange(deps.store, expireAuthorization(payment, deps.ttlHours, now), { tx });
    }
    return due.length;
  });

  return {
    /** Cancels every authorization due at `now`; returns how many. Safe to run on many replicas at once. */
    sweepExpiredAuthorizations: (now: Date = deps.clock.now()) => loop.sweep(now),
    start: () => loop.start(() => deps.clock.now()),
    stop: () => loop.stop(),
  };
}

export type AuthorizationExpiry = ReturnType<typeof createAuthorizationExpiry>;
