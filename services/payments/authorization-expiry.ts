import type { Clock, Logger } from '../shared/index.js';
import { expireAuthorization, writeChange } from './lifecycle.js';
import type { PaymentsStore } from './store.js';

/**
 * Cancels manual-capture authorizations nobody captured within the configured period, with
 * payment.cancelled. Every replica of payments runs this job; `FOR UPDATE SKIP LOCKED` lets them
 * share the work without cancelling one payment twice, and lets a merchant's concurrent capture
 * or cancel (which holds the row) win or lose cleanly rather than block the sweep.
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
  const batchSize = deps.batchSize ?? 100;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;
  // Set by stop() only: a direct call (a test, an operator) still drains every batch.
  let closing = false;

  /** Cancels every authorization due at `now`; returns how many. Safe to run on many replicas at once. */
  async function sweepExpiredAuthorizations(now: Date = deps.clock.now()): Promise<number> {
    const cutoff = expiryCutoff(now, deps.ttlHours);
    let total = 0;
    for (;;) {
      const n = await deps.store.transaction(async (tx) => {
        const due = await deps.store.claimExpiredAuthorizations(tx, cutoff, batchSize);
        for (const payment of due) {
          await writeChange(deps.store, tx, payment, expireAuthorization(payment, deps.ttlHours, now), now);
        }
        return due.length;
      });
      total += n;
      if (n > 0) deps.relay.kick();
      if (n < batchSize || closing) return total;
    }
  }

  function schedule(): void {
    timer = setTimeout(() => {
      running = sweepExpiredAuthorizations()
        .then((n) => {
          if (n > 0) deps.logger.info({ cancelled: n }, 'authorization expiry: cancelled expired authorizations');
        })
        .catch((err: Error) => deps.logger.warn({ err: err.message }, 'authorization expiry: sweep failed, will retry'))
        .finally(() => {
          running = undefined;
          if (!stopped) schedule();
        });
    }, deps.intervalMs);
  }

  return {
    sweepExpiredAuthorizations,
    start(): void {
      if (!stopped) return;
      stopped = false;
      closing = false;
      schedule();
    },
    /** Stops scheduling and waits for a sweep under way, so the pool is not closed beneath it. */
    async stop(): Promise<void> {
      stopped = true;
      closing = true;
      clearTimeout(timer);
      await running;
    },
  };
}

export type AuthorizationExpiry = ReturnType<typeof createAuthorizationExpiry>;
