import type { PoolClient } from '../../platform/db.js';
import { every } from '../../platform/every.js';
import type { Logger } from '../../platform/logger.js';
import type { PaymentsStore } from '../payments/index.js';

/**
 * The loop every housekeeping job of payments shares (authorization expiry, customer-action expiry):
 * claim a batch of due payments with `FOR UPDATE SKIP LOCKED`, change them, commit, repeat until a
 * batch comes back short. Every replica runs it; SKIP LOCKED lets them share the work without
 * changing one payment twice, and lets a merchant's or customer's concurrent change (which holds
 * the row) win or lose cleanly rather than block the sweep.
 */

export interface SweepDeps {
  store: PaymentsStore;
  relay: { kick(): void };
  logger: Logger;
  intervalMs: number;
  /** Payments per transaction: bounds how long one sweep holds row locks. */
  batchSize?: number;
  /** Names the job in its log lines. */
  name: string;
}

/**
 * `batch` claims and changes up to `limit` payments due at `now` inside `tx`, returning how many it
 * claimed; a batch shorter than the limit ends the sweep.
 */
export type SweepBatch = (tx: PoolClient, now: Date, limit: number) => Promise<number>;

export function createSweep(deps: SweepDeps, batch: SweepBatch) {
  const batchSize = deps.batchSize ?? 100;
  // Set by stop() only: a direct call (a test, an operator) still drains every batch.
  let closing = false;
  let loop: ReturnType<typeof every> | undefined;

  /** Changes every payment due at `now`; returns how many. Safe to run on many replicas at once. */
  async function sweep(now: Date): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await deps.store.transaction((tx) => batch(tx, now, batchSize));
      total += n;
      if (n > 0) deps.relay.kick();
      if (n < batchSize || closing) return total;
    }
  }

  return {
    sweep,
    /** Sweeps every `intervalMs`, each time as of `now()` (the injected clock). */
    start(now: () => Date): void {
      closing = false;
      loop ??= every(deps.intervalMs, deps.name, deps.logger, async () => {
        const n = await sweep(now());
        if (n > 0) deps.logger.info({ changed: n }, `${deps.name}: changed due payments`);
      });
      loop.start();
    },
    /** Stops scheduling and waits for a sweep under way, so the pool is not closed beneath it. */
    async stop(): Promise<void> {
      closing = true;
      await loop?.stop();
    },
  };
}
