import { createBatcher, type Clock, type Logger } from '../shared/index.js';
import type { Claim, DeliveryStore, Outcome } from './deliveries.js';
import { afterFailure } from './schedule.js';
import type { SecretBox } from './secret-box.js';
import type { AttemptResult, Sender } from './sender.js';
import { signatureHeader, truncateSignature } from './signature.js';

export const USER_AGENT = 'svc-webhooks/1.0';
const COALESCE_MS = 5;

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
}

/** The contract's headers, in its order. */
export function deliveryHeaders(claim: Claim, signature: string): Array<[string, string]> {
  return [
    ['content-type', 'application/json'],
    ['user-agent', USER_AGENT],
    ['svc-signature', signature],
    ['svc-event-id', claim.eventId],
    ['svc-event-type', claim.eventType],
    ['svc-delivery-id', claim.id],
    ['svc-delivery-attempt', String(claim.attempt)],
    ['content-length', String(Buffer.byteLength(claim.body))],
  ];
}

/**
 * Claims due deliveries and makes their attempts, at most `concurrency` at once (until recorded)
 * and at most `perEndpoint` HTTP requests open to one endpoint, so one slow or dead endpoint holds
 * a few slots while every other endpoint keeps being served. Woken by new events and by each finished attempt; polls for
 * retries that come due. A claim is a lease: an attempt cannot outlast it (the time-out is far
 * shorter), and if this process dies the lease lapses and another dispatcher makes the attempt.
 */
export function createDispatcher(opts: DispatcherOptions) {
  const busy = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let pumping: Promise<void> | undefined;
  let again = false;
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  // Twice the time-out leaves room for a slow event loop before another replica may retry.
  const leaseMs = 2 * opts.timeoutMs + 5000;
  const leaseFrom = (now: Date) => new Date(now.getTime() + leaseMs);

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
    const startedAt = opts.clock.now();
    let signature: string;
    let result: AttemptResult;
    try {
      signature = signatureHeader(opts.box.open(claim.storedSecret), claim.body, startedAt);
      result = await opts.sender.send({ url: claim.url, mode: claim.mode, body: claim.body, headers: deliveryHeaders(claim, signature) });
    } catch (err) {
      signature = 't=?,v1=?';
      result = { error: `not sent: ${(err as Error).message}`, durationMs: 0 };
    }
    sent?.();
    const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
    const next = ok ? { status: 'succeeded' as const, nextAttemptAt: null } : afterFailure(claim.attempt, startedAt, opts.maxAttempts);
    const outcome: Outcome = {
      claim, manual, startedAt, ...next,
      requestHeaders: deliveryHeaders(claim, truncateSignature(signature)),
      responseStatus: result.status, responseBody: result.responseBody, error: result.error, durationMs: result.durationMs,
    };
    const applied = await record(outcome);
    if (!applied) opts.logger.warn({ delivery: claim.id, attempt: claim.attempt }, 'webhook attempt finished after its lease; another dispatcher took over');
    return outcome;
  }

  function launch(claim: Claim): void {
    busy.set(claim.endpointId, (busy.get(claim.endpointId) ?? 0) + 1);
    // The endpoint's slot is held for the HTTP exchange only; the dispatcher's until it is recorded.
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const n = (busy.get(claim.endpointId) ?? 1) - 1;
      if (n === 0) busy.delete(claim.endpointId);
      else busy.set(claim.endpointId, n);
      kickSoon();
    };
    const running: Promise<void> = attempt(claim, false, release)
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
      while (!stopped && inFlight.size < opts.concurrency) {
        const room = opts.concurrency - inFlight.size;
        const now = opts.clock.now();
        let claims: Claim[];
        try {
          claims = await opts.store.claim(now, room, opts.perEndpoint, busy, leaseFrom(now));
        } catch (err) {
          opts.logger.warn({ err: (err as Error).message }, 'webhook dispatcher: claim failed, will retry');
          return;
        }
        for (const claim of claims) launch(claim);
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
    /** A manual resend: claims this delivery and makes its attempt now, outside the batch. */
    async resend(claim: Claim): Promise<Outcome> {
      return attempt(claim, true);
    },
    leaseFrom,
    /** Stops claiming and waits for the attempts under way (each ends by the time-out). */
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      clearTimeout(soon);
      await pumping;
      await Promise.all(inFlight);
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
