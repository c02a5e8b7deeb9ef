import type { EventBus } from './bus/index.js';
import type { DatabaseClock } from './database-clock.js';
import { pingDatabase, type Pool } from './db.js';
import { every } from './every.js';
import type { Logger } from './logger.js';
import { ServingStatus, type HealthState } from './rpc.js';

// A part's grpc.health.v1 status follows what it cannot work without: NOT_SERVING while its
// Postgres or its NATS is unreachable, SERVING again once both are back. NATS says so itself (the
// connection's status events, at once); Postgres is asked with SELECT 1 every
// HEALTH_CHECK_INTERVAL_MS (5 s by default, the readiness probe's period), and a ping unanswered
// within PING_TIMEOUT_MS counts as down. Start-up has already waited for both, so both start up.
// A part whose clock is too far from the database's (database-clock.ts) is NOT_SERVING too.

/** Long enough for a loaded database, short enough to answer within a probe's 2-second timeout budget. */
export const PING_TIMEOUT_MS = 2_000;

export interface DependencyWatchOptions {
  pool: Pool;
  bus: EventBus;
  health: HealthState;
  intervalMs: number;
  logger: Logger;
  /** The part's clock, when read from the database: untrusted (skewed) is not ready. */
  clock?: Pick<DatabaseClock, 'trusted'>;
}

export interface DependencyWatch {
  start(): void;
  /** Stops watching; the status is left as it is (closing sets its own). */
  stop(): Promise<void>;
}

export function watchDependencies(opts: DependencyWatchOptions): DependencyWatch {
  const up = { postgres: true, nats: true, clock: true };
  const update = (dependency: keyof typeof up, now: boolean) => {
    if (up[dependency] === now) return;
    up[dependency] = now;
    if (now) opts.logger.info({ dependency }, `${dependency} reachable again`);
    else opts.logger.warn({ dependency }, `${dependency} unreachable: reporting NOT_SERVING until it is back`);
    opts.health.setAll(up.postgres && up.nats && up.clock ? ServingStatus.SERVING : ServingStatus.NOT_SERVING);
  };
  const ping = every(opts.intervalMs, 'Postgres health check', opts.logger, async () => {
    update('postgres', await pingDatabase(opts.pool, PING_TIMEOUT_MS));
    if (opts.clock) update('clock', opts.clock.trusted());
  });
  let unsubscribe: (() => void) | undefined;
  return {
    start() {
      unsubscribe = opts.bus.onConnectionChange?.((connected) => update('nats', connected));
      if (opts.clock) update('clock', opts.clock.trusted());
      ping.start();
    },
    async stop() {
      unsubscribe?.();
      await ping.stop();
    },
  };
}
