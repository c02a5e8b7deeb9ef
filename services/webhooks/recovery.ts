import type { Clock, Logger } from '../platform/index.js';
import type { DeliveryStore } from './deliveries.js';
import type { Dispatcher } from './dispatcher.js';
import type { Scope } from './endpoints.js';
import type { Throttle } from './throttle.js';

// "Resend everything that failed since T" for one endpoint (RecoverEndpoint): each delivery of the
// endpoint created at or after T that is failed or exhausted gets a normal resend (claimForResend
// and the dispatcher's resend: same event id and body, the next attempt number, marked manual),
// RESENDS_AT_ONCE at a time, within the endpoint's throttle. The call answers how many it found and
// the resends go on in the background; one under way when the part stops is finished, the rest are
// not made (call again: the ones that succeeded are no longer failed).

export const MAX_RECOVERED = 10_000;
const RESENDS_AT_ONCE = 4;

export interface RecoveryDeps {
  deliveries: DeliveryStore;
  dispatcher: Dispatcher;
  throttle: Throttle;
  clock: Clock;
  logger: Logger;
}

export interface RecoveredEndpoint {
  id: string;
  maxPerSecond: number | null;
}

export function createRecovery(deps: RecoveryDeps) {
  const running = new Set<Promise<void>>();
  let stopped = false;

  async function resendOne(scope: Scope, endpoint: RecoveredEndpoint, id: string): Promise<void> {
    // The slot first: a claimed resend cannot be handed back, and must not wait past its lease.
    if (endpoint.maxPerSecond !== null &&
      !(await deps.throttle.acquire(endpoint.id, endpoint.maxPerSecond, Number.POSITIVE_INFINITY, () => stopped))) return;
    const now = deps.clock.now();
    const claim = await deps.deliveries.claimForResend(scope, id, now, deps.dispatcher.leaseFrom(now));
    // Gone, or being attempted right now: that attempt is its resend.
    if (claim === undefined || claim === 'busy') return;
    await deps.dispatcher.resend(claim);
  }

  async function resendAll(scope: Scope, endpoint: RecoveredEndpoint, ids: string[]): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (!stopped && next < ids.length) {
        const id = ids[next++];
        await resendOne(scope, endpoint, id).catch((err: Error) =>
          deps.logger.warn({ delivery: id, err: err.message }, 'webhook recovery: a resend failed to start'));
      }
    };
    await Promise.all(Array.from({ length: Math.min(RESENDS_AT_ONCE, ids.length) }, worker));
  }

  return {
    /** Finds the endpoint's deliveries to resend and starts resending them; answers how many. */
    async recover(scope: Scope, endpoint: RecoveredEndpoint, since: Date): Promise<number> {
      const ids = await deps.deliveries.unsuccessfulSince(scope, endpoint.id, since, MAX_RECOVERED);
      if (ids.length > 0 && !stopped) {
        const job: Promise<void> = resendAll(scope, endpoint, ids).finally(() => running.delete(job));
        running.add(job);
      }
      return ids.length;
    },
    async stop(): Promise<void> {
      stopped = true;
      await Promise.all(running);
    },
  };
}

export type Recovery = ReturnType<typeof createRecovery>;
