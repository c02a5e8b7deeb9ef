import { randomUUID } from 'node:crypto';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import type { DeliveryStore } from './deliveries.js';
import type { Dispatcher } from './dispatcher.js';
import type { Scope } from './endpoints.js';
import type { RecoveryState, RecoveryStore } from './recoveries.js';
import type { Throttle } from './throttle.js';

// "Resend everything that failed since T" for one enabled endpoint (RecoverEndpoint). One recovery
// runs per endpoint across replicas (recoveries.ts): a call while one runs starts nothing and
// answers that one's progress. It takes the endpoint's deliveries created at or after T that are
// failed or exhausted, not due for their own retry now and not taken by a recovery within
// COOLDOWN_MS, and resends each as a manual resend does (claimForResend and the dispatcher's resend:
// same event id and body, the next attempt number, marked manual), RESENDS_AT_ONCE at a time, each
// after its host's pacer slot and within the endpoint's throttle. The call answers at once and the
// resends go on in the background; the run stops when its endpoint is disabled (nothing is sent
// after the disable commits) or the part stops (call again: what was resent is left alone).

export const MAX_RECOVERED = 10_000;
const RESENDS_AT_ONCE = 4;
/** A delivery a recovery took is left alone by later recoveries this long: calls in a row cannot multiply it. */
const RECOVERY_COOLDOWN_MS = 60_000;
/** The run's lease on its row, renewed every HEARTBEAT_MS; a replica that dies frees the endpoint after it. */
const LEASE_MS = 30_000;
const HEARTBEAT_MS = 1_000;

export interface RecoveryDeps {
  deliveries: DeliveryStore;
  recoveries: RecoveryStore;
  dispatcher: Dispatcher;
  throttle: Throttle;
  clock: Clock;
  logger: Logger;
}

export interface RecoveredEndpoint {
  id: string;
  url: string;
  maxPerSecond: number | null;
}

export interface RecoveryAnswer extends RecoveryState {
  /** A recovery was already running: this call started nothing. */
  joined: boolean;
}

interface Run {
  scope: Scope;
  endpoint: RecoveredEndpoint;
  id: string;
  /** Set when the run lost its row or its endpoint was disabled. */
  ended: boolean;
}

export function createRecovery(deps: RecoveryDeps) {
  const running = new Set<Promise<void>>();
  let stopped = false;

  async function resendOne(run: Run, id: string): Promise<void> {
    const cancelled = () => stopped || run.ended;
    // The slots first: a claimed resend cannot be handed back, and must not wait past its lease.
    if (!(await deps.dispatcher.pace(run.endpoint.url, Number.POSITIVE_INFINITY, cancelled))) return;
    const { maxPerSecond } = run.endpoint;
    if (maxPerSecond !== null && !(await deps.throttle.acquire(run.endpoint.id, maxPerSecond, Number.POSITIVE_INFINITY, cancelled))) return;
    const now = deps.clock.now();
    const claim = await deps.deliveries.claimForResend(run.scope, id, now, deps.dispatcher.leaseFrom(now), RECOVERY_COOLDOWN_MS);
    // Gone, being attempted, due, recovered already, or its endpoint disabled: nothing to send.
    if (claim === undefined || claim === 'busy') return;
    await deps.dispatcher.resend(claim);
    await deps.recoveries.resent(run.endpoint.id, run.id);
  }

  async function resendAll(run: Run, ids: string[]): Promise<void> {
    const heartbeat = setInterval(() => {
      deps.recoveries.renew(run.endpoint.id, run.id, LEASE_MS).then((held) => {
        if (!held) run.ended = true;
      }, (err: Error) => deps.logger.warn({ endpoint: run.endpoint.id, err: err.message }, 'webhook recovery: lease not renewed'));
    }, HEARTBEAT_MS);
    let next = 0;
    const worker = async () => {
      while (!stopped && !run.ended && next < ids.length) {
        const id = ids[next++];
        await resendOne(run, id).catch((err: Error) =>
          deps.logger.warn({ delivery: id, err: err.message }, 'webhook recovery: a resend failed to start'));
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(RESENDS_AT_ONCE, ids.length) }, worker));
    } finally {
      clearInterval(heartbeat);
      await deps.recoveries.finish(run.endpoint.id, run.id).catch((err: Error) =>
        deps.logger.warn({ endpoint: run.endpoint.id, err: err.message }, 'webhook recovery: not marked finished; its lease ends it'));
    }
  }

  return {
    /** Starts the endpoint's recovery, or answers the one running; the endpoint must be enabled. */
    async recover(scope: Scope, endpoint: RecoveredEndpoint, since: Date): Promise<RecoveryAnswer> {
      const run: Run = { scope, endpoint, id: randomUUID(), ended: false };
      const { started, state } = await deps.recoveries.start(endpoint.id, run.id, since, LEASE_MS);
      if (!started) return { ...state, joined: true };
      const ids = await deps.deliveries.recoverableSince(scope, endpoint.id, since, deps.clock.now(), RECOVERY_COOLDOWN_MS, MAX_RECOVERED);
      await deps.recoveries.found(endpoint.id, run.id, ids.length);
      if (ids.length > 0 && !stopped) {
        const job: Promise<void> = resendAll(run, ids).finally(() => running.delete(job));
        running.add(job);
      } else if (ids.length > 0) await deps.recoveries.finish(endpoint.id, run.id);
      return { ...state, deliveries: ids.length, running: ids.length > 0 && !stopped, joined: false };
    },
    async stop(): Promise<void> {
      stopped = true;
      await Promise.all(running);
    },
  };
}

export type Recovery = ReturnType<typeof createRecovery>;
