import { createBatcher } from '../platform/batcher.js';
import type { Clock } from '../platform/clock.js';
import type { Logger } from '../platform/logger.js';
import { SpanKind, continueTrace, tracingOn } from '../platform/tracing.js';
import type { Claim, DeliveryStore, Outcome } from './deliveries.js';
import { afterAttempt, retryAfterTime } from './schedule.js';
import type { Throttle } from './throttle.js';
import type { SecretBox } from '../platform/secret-box.js';
import type { AttemptResult, Sender } from './sender.js';
import type { DeliveryMetrics } from './metrics.js';
import { createHostPacer, hostOf } from './host-pacer.js';
import { deliveryHeaders, signatureHeader } from '../contract/webhook-delivery.js';
import { truncateSignature } from './signature.js';

const COALESCE_MS = 5;
const CLAIM_AHEAD = 2;
/** A claim waits in memory at most this long for its host's slot; one due later goes back to the table until then. */
export const PACE_HORIZON_MS = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface DispatcherOptions {
  store: DeliveryStore;
  sender: Sender;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  timeoutMs: number;
  maxAttempts: number;
  concurrency: number;
  perEndpoint: number;
  pollMs: number;
  /** Attempts started per second to one destination host (host-pacer.ts), resends included (pace()); unset: not paced. */
  hostRatePerSecond?: number;
  /** Where attempts are counted (metrics.ts); nowhere when absent. */
  metrics?: DeliveryMetrics;
  /** Endpoints' maximum delivery rates across replicas (throttle.ts); absent: not honoured. */
  throttle?: Throttle;
}

/**
 * A 429 with Retry-After is free (not counted by the schedule) while the delivery has made fewer than
 * this many times its attempt limit in all: a receiver answering 429 for ever still ends exhausted.
 */
const FREE_THROTTLED_FACTOR = 3;

/**
 * Claims due deliveries and makes their attempts, at most `concurrency` claims held at once (until
 * recorded) and at most `perEndpoint` HTTP requests open to one endpoint, so one slow or dead
 * endpoint holds a few slots while every other endpoint keeps being served. Woken by new events
 * and by each finished attempt; polls for retries that come due. A claim is a lease: an attempt cannot outlast it (the time-out is far
 * shorter), and if this process dies the lease lapses and another dispatcher makes the attempt.
 *
 * Up to CLAIM_AHEAD times `perEndpoint` claims are held per endpoint: those past the open requests
 * wait here for a slot, so a finished request is followed at once by the next rather than after a
 * claim's round trip (which, under load, took longer than the request itself). A waiting claim
 * starts within one time-out (the requests ahead of it each end by then), so its attempt still
 * ends within the lease; one that would not, and those waiting when the dispatcher stops, are
 * handed back.
 */
export function createDispatcher(opts: DispatcherOptions) {
  const held = new Map<string, number>();
  const open = new Map<string, number>();
  const waiting = new Map<string, Array<{ claim: Claim; leaseUntil: Date }>>();
  let waitingCount = 0;
  const inFlight = new Set<Promise<void>>();
  let pumping: Promise<void> | undefined;
  let again = false;
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  // Twice the time-out leaves room for a slow event loop before another replica may retry.
  const leaseMs = 2 * opts.timeoutMs + 5000;
  const leaseFrom = (now: Date) => new Date(now.getTime() + leaseMs);
  // A waiting claim may start while its attempt would still end half the margin before its lease.
  const latestStart = (leaseUntil: Date) => leaseUntil.getTime() - opts.timeoutMs - 2500;
  const pacer = createHostPacer(opts.hostRatePerSecond ?? Infinity);
  // Endpoints that answered 429 with Retry-After: no attempt of theirs starts before then (ms).
  const paused = new Map<string, number>();

  // Finished attempts are recorded together: while one batch is being written the next gathers,
  // so under load a single statement records many attempts instead of one round trip each.
  const record = createBatcher(async (outcomes: Outcome[]) => {
    const moved = await opts.store.complete(outcomes, opts.clock.now());
    return outcomes.map((o) => moved.has(o.claim.id));
  });

  /**
   * Makes the claimed attempt and records it; returns what was recorded. `sent` is called once the
   * HTTP exchange is over, before recording: the endpoint is no longer loaded by this attempt.
   */
  async function attempt(claim: Claim, manual: boolean, sent?: () => void): Promise<Outcome> {
    // While tracing, each attempt is a span of the trace its event arrived with (events.traceparent).
    if (!tracingOn()) return attemptOnce(claim, manual, sent);
    return continueTrace('webhook delivery attempt', SpanKind.CLIENT, claim.traceparent, {
      'svc.delivery_id': claim.id, 'svc.event_type': claim.eventType, 'svc.attempt': claim.attempt, 'svc.manual': manual,
    }, () => attemptOnce(claim, manual, sent));
  }

  async function attemptOnce(claim: Claim, manual: boolean, sent?: () => void): Promise<Outcome> {
    const startedAt = opts.clock.now();
    let headers: Array<[string, string]>;
    let result: AttemptResult;
    try {
      headers = deliveryHeaders(claim, signatureHeader(opts.box.open(claim.storedSecret), claim.body, startedAt));
      result = await opts.sender.send({ url: claim.url, mode: claim.mode, body: claim.body, headers });
    } catch (err) {
      headers = deliveryHeaders(claim, 't=?,v1=?');
      result = { error: `not sent: ${(err as Error).message}`, durationMs: 0 };
    }
    sent?.();
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    const throttledUntil = result.status === 429 && claim.attempt <= FREE_THROTTLED_FACTOR * opts.maxAttempts
      ? retryAfterTime(result.retryAfter, opts.clock.now()) : undefined;
    if (throttledUntil) paused.set(claim.endpointId, throttledUntil.getTime());
    // Slowed down, not failed: the next attempt is at the receiver's time and the schedule does not advance.
    const next = throttledUntil
      ? { status: manual ? null : 'failed' as const, nextAttemptAt: manual ? null : throttledUntil }
      : afterAttempt(ok, manual, claim.scheduled, startedAt, opts.maxAttempts);
    opts.metrics?.attempted(next.status, manual, result.durationMs);
    const outcome: Outcome = {
      claim, manual, startedAt, ...next, throttledUntil,
      requestHeaders: headers.map(([name, value]) => [name, name === 'svc-signature' ? truncateSignature(value) : value]),
      responseStatus: result.status, responseBody: result.responseBody, error: result.error, durationMs: result.durationMs,
    };
    const applied = await record(outcome);
    if (!applied) opts.logger.warn({ delivery: claim.id, attempt: claim.attempt }, 'webhook attempt finished after its lease; another dispatcher took over');
    return outcome;
  }

  const add = (counts: Map<string, number>, key: string, by: number) => {
    const n = (counts.get(key) ?? 0) + by;
    if (n === 0) counts.delete(key);
    else counts.set(key, n);
  };

  /** Hands claims back as they were before (never attempted), due now (or at `dueAt`). */
  function handBack(claims: Claim[], dueAt?: Date): Promise<void> {
    if (claims.length === 0) return Promise.resolve();
    return opts.store.unclaim(claims, opts.clock.now(), dueAt).catch((err) => {
      // The lease brings them back all the same, only later.
      opts.logger.warn({ err: (err as Error).message, deliveries: claims.length }, 'webhook claims could not be handed back');
    });
  }

  function launch(claim: Claim, leaseUntil: Date): void {
    add(held, claim.endpointId, 1);
    if ((open.get(claim.endpointId) ?? 0) < opts.perEndpoint) return start(claim, leaseUntil);
    const queue = waiting.get(claim.endpointId);
    if (queue) queue.push({ claim, leaseUntil });
    else waiting.set(claim.endpointId, [{ claim, leaseUntil }]);
    waitingCount++;
  }

  /** Starts the endpoint's waiting claims while it has free slots; those too late for their lease go back. */
  function next(endpointId: string): void {
    const queue = waiting.get(endpointId);
    const late: Claim[] = [];
    while (!stopped && queue && queue.length > 0 && (open.get(endpointId) ?? 0) < opts.perEndpoint) {
      const { claim, leaseUntil } = queue.shift()!;
      waitingCount--;
      if (queue.length === 0) waiting.delete(endpointId);
      if (opts.clock.now().getTime() <= latestStart(leaseUntil)) start(claim, leaseUntil);
      else {
        add(held, endpointId, -1);
        late.push(claim);
      }
    }
    void handBack(late);
  }

  /**
   * Gives a claim whose host has no slot soon back to the table, due when the slot is: it is no
   * attempt (nothing is sent, the schedule and the attempt number stay), only a later start.
   */
  function defer(claim: Claim, waitMs: number): void {
    add(held, claim.endpointId, -1);
    const handed: Promise<void> = handBack([claim], new Date(opts.clock.now().getTime() + waitMs))
      .finally(() => inFlight.delete(handed));
    inFlight.add(handed);
  }

  /** Starts the claim's attempt at its host's next slot (host-pacer.ts), holding an endpoint slot meanwhile. */
  function start(claim: Claim, leaseUntil: Date): void {
    const nowMs = opts.clock.now().getTime();
    const pausedUntil = Math.max(claim.pausedUntil?.getTime() ?? 0, paused.get(claim.endpointId) ?? 0);
    if (pausedUntil > nowMs) return defer(claim, pausedUntil - nowMs);
    if (paused.has(claim.endpointId)) paused.delete(claim.endpointId);
    const host = hostOf(claim.url);
    const wait = pacer.waitFor(host, Date.now());
    if (wait > PACE_HORIZON_MS || opts.clock.now().getTime() + wait > latestStart(leaseUntil)) return defer(claim, wait);
    const delay = pacer.take(host, Date.now());
    add(open, claim.endpointId, 1);
    // The endpoint's slot is held for the HTTP exchange only; the dispatcher's until it is recorded.
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      add(open, claim.endpointId, -1);
      add(held, claim.endpointId, -1);
      next(claim.endpointId);
      kickSoon();
    };
    const paced = delay > 0 ? sleep(delay) : Promise.resolve();
    // Within the endpoint's rate (all replicas together); a claim that gets no slot in time goes back.
    const throttled = claim.maxPerSecond === null || !opts.throttle ? paced.then(() => true) : paced.then(() =>
      opts.throttle!.acquire(claim.endpointId, claim.maxPerSecond!, latestStart(leaseUntil), () => stopped));
    const running: Promise<void> = throttled.then(async (slot) => {
      if (slot) return void (await attempt(claim, false, release));
      opts.metrics?.throttled();
      release();
      await handBack([claim], new Date(opts.clock.now().getTime() + 1000));
    })
      .then(() => undefined, (err) => {
        // The lease brings it back: nothing is lost if recording failed.
        opts.logger.warn({ err: (err as Error).message, delivery: claim.id }, 'webhook attempt could not be recorded');
      })
      .finally(() => {
        release();
        inFlight.delete(running);
        kickSoon();
      });
    inFlight.add(running);
  }

  // A finished attempt frees one slot; claiming for it alone would cost a statement per delivery.
  // While others are still in flight, slots freed within a few milliseconds are claimed together.
  let soon: NodeJS.Timeout | undefined;
  function kickSoon(): void {
    if (inFlight.size === 0) return kick();
    soon ??= setTimeout(() => {
      soon = undefined;
      kick();
    }, COALESCE_MS);
  }

  async function pump(): Promise<void> {
    do {
      again = false;
      while (!stopped && inFlight.size + waitingCount < opts.concurrency) {
        const room = opts.concurrency - inFlight.size - waitingCount;
        const now = opts.clock.now();
        const leaseUntil = leaseFrom(now);
        let claims: Claim[];
        try {
          claims = await opts.store.claim(now, room, CLAIM_AHEAD * opts.perEndpoint, held, leaseUntil);
        } catch (err) {
          opts.logger.warn({ err: (err as Error).message }, 'webhook dispatcher: claim failed, will retry');
          return;
        }
        for (const claim of claims) launch(claim, leaseUntil);
        if (claims.length < room) break;
      }
    } while (again && !stopped);
  }

  function kick(): void {
    if (stopped) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = pump().finally(() => {
      pumping = undefined;
      if (again && !stopped) kick();
    });
  }

  return {
    start(): void {
      stopped = false;
      timer = setInterval(kick, opts.pollMs);
      timer.unref();
      kick();
    },
    kick,
    /**
     * Waits for and takes the next slot of the URL's host (host-pacer.ts) before a resend is
     * claimed, as every automatic attempt does; false, with nothing taken, when the slot is further
     * than `maxWaitMs` away or `cancelled()` turns true while waiting.
     */
    async pace(url: string, maxWaitMs: number, cancelled: () => boolean = () => stopped): Promise<boolean> {
      const host = hostOf(url);
      for (;;) {
        if (cancelled()) return false;
        const wait = pacer.waitFor(host, Date.now());
        if (wait > maxWaitMs) return false;
        if (wait <= PACE_HORIZON_MS) break;
        // Far slots are not reserved: the wait is re-judged, so attempts due meanwhile are not starved.
        await sleep(Math.min(wait - PACE_HORIZON_MS, PACE_HORIZON_MS));
      }
      const delay = pacer.take(host, Date.now());
      if (delay > 0) await sleep(delay);
      return true;
    },
    /** A manual resend of a delivery claimed for it (claimForResend): its extra attempt, made now. */
    async resend(claim: Claim): Promise<Outcome> {
      return attempt(claim, true);
    },
    leaseFrom,
    /** Stops claiming, hands back the claims not started and waits for the attempts under way (each ends by the time-out). */
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      clearTimeout(soon);
      await pumping;
      const unstarted = [...waiting.values()].flat().map((w) => w.claim);
      for (const claim of unstarted) add(held, claim.endpointId, -1);
      waiting.clear();
      waitingCount = 0;
      await Promise.all([handBack(unstarted), ...inFlight]);
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
