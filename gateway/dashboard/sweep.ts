import type { Clock } from '../../services/platform/clock.js';
import type { Logger } from '../../services/platform/logger.js';
import type { GatewayStore } from '../store/index.js';

// The dashboard's periodic clean-up, one job in every gateway replica (the deletes are idempotent,
// so replicas running it at once only repeat each other): mailed links past their expiry and throttle
// rows past their window (gateway/store/sweep.ts says which). Nothing reads those rows again; left
// alone, the tables would grow with every reset asked for and every sign-in tried.

export interface DashboardSweep {
  /** One run now (what the interval does); answers the rows deleted per table. */
  runOnce(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export function startDashboardSweep(store: GatewayStore, clock: Clock, logger: Logger, everyMs: number): DashboardSweep {
  let running: Promise<unknown> = Promise.resolve();
  const runOnce = async () => store.sweepDashboardRows(clock.now());
  const timer = setInterval(() => {
    running = running.then(runOnce).then((deleted) => {
      const total = Object.values(deleted).reduce((a, b) => a + b, 0);
      if (total > 0) logger.debug({ deleted }, `dashboard sweep deleted ${total} rows`);
    }).catch((err: Error) => logger.warn({ reason: err.message }, `dashboard sweep failed: ${err.message}`));
  }, everyMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
