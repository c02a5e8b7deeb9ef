import { performance } from 'node:perf_hooks';
import type { QueryConfig } from 'pg';
import { DomainError } from '../contract/errors.js';
import { systemClock, type Clock } from './clock.js';
import type { Pool } from './db.js';
import type { Logger } from './logger.js';
import type { Metrics } from './metrics.js';

// Leases, holds, expiries and reconciliation ages are compared across replicas, so every part
// reads time from one clock: the database's. A part reads Postgres's clock_timestamp() at start
// and every CLOCK_SKEW_CHECK_MS (half the round trip taken off) and carries it forward with the
// process's monotonic clock, which no NTP step or faulty host clock moves; its own wall clock is
// only compared with it. That difference is the part's skew: logged, exported as
// svc_clock_skew_seconds, and beyond CLOCK_SKEW_MAX_MS the part is not ready and its clock refuses
// to tell the time (503 service_unavailable for a request, a retried round for a background job),
// so it claims no work while its host is that far off.

const READ = 'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms';

export interface DatabaseClock extends Clock {
  /** Read and within the bound: this process may judge leases and claim work. */
  trusted(): boolean;
  /** Reads the database's clock now; resolves with the skew (this process's clock minus the database's, ms). */
  measure(): Promise<number>;
  start(): void;
  stop(): void;
}

export interface DatabaseClockOptions {
  pool: Pool;
  logger: Logger;
  maxSkewMs: number;
  intervalMs: number;
  /**
   * A clock tests move (an offset, a hand-set time): told as it is, so a test still moves time
   * without sleeping; only its skew check and refusal apply. Unset: the database's.
   */
  base?: Clock;
  metrics?: Metrics;
  part?: string;
}

export function createDatabaseClock(opts: DatabaseClockOptions): DatabaseClock {
  const base = opts.base ?? systemClock;
  let anchor: { dbMs: number; monotonicMs: number } | undefined;
  let skew: number | undefined;
  let timer: NodeJS.Timeout | undefined;

  const trusted = () => skew !== undefined && Math.abs(skew) <= opts.maxSkewMs;

  async function measure(): Promise<number> {
    const wall0 = Date.now();
    const mono0 = performance.now();
    const { rows } = await opts.pool.query({ text: READ, query_timeout: opts.maxSkewMs + 5_000 } as QueryConfig);
    const mono1 = performance.now();
    const wall1 = Date.now();
    const roundTripMs = Math.round(mono1 - mono0);
    // The reading is off by up to half the round trip: one slower than the bound is not worth it.
    if (anchor && skew !== undefined && roundTripMs > opts.maxSkewMs) {
      opts.logger.warn({ round_trip_ms: roundTripMs }, 'clock reading discarded: the database answered too slowly');
      return skew;
    }
    const dbMs = Number(rows[0].ms);
    anchor = { dbMs, monotonicMs: (mono0 + mono1) / 2 };
    const was = trusted();
    skew = Math.round((wall0 + wall1) / 2 - dbMs);
    const fields = { skew_ms: skew, round_trip_ms: roundTripMs, bound_ms: opts.maxSkewMs };
    if (!trusted()) opts.logger.error(fields, 'clock skew against the database beyond the bound: not ready, claiming no work');
    else if (!was) opts.logger.info(fields, 'clock skew against the database measured');
    return skew;
  }

  opts.metrics?.gauge('svc_clock_skew_seconds', "This process's clock minus the database's at the last reading", {
    part: { matches: (v: string) => /^[a-z-]+$/.test(v) },
  }).onCollect((set) => {
    if (skew !== undefined) set({ part: opts.part ?? 'svc' }, skew / 1000);
  });

  return {
    now() {
      if (anchor && !trusted()) {
        throw new DomainError('service_unavailable', "This replica's clock disagrees with the database's; retry the request.");
      }
      if (!anchor || base !== systemClock) return base.now();
      return new Date(anchor.dbMs + (performance.now() - anchor.monotonicMs));
    },
    trusted,
    measure,
    start() {
      if (timer) return;
      const tick = () => {
        timer = setTimeout(() => {
          measure().catch((err: Error) => opts.logger.warn({ err: err.message }, 'clock skew not measured, will retry')).finally(() => {
            if (timer) tick();
          });
        }, opts.intervalMs);
        timer.unref();
      };
      tick();
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** Whether `clock` is read from the database (parts built by tests may be given any clock). */
export function isDatabaseClock(clock: Clock): clock is DatabaseClock {
  return typeof (clock as Partial<DatabaseClock>).trusted === 'function';
}
