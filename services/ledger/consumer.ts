import type { Pool } from '../platform/db.js';
import type { Logger } from '../platform/logger.js';
import type { EventEnvelope } from '../contract/index.js';
import { createBatcher } from '../platform/batcher.js';
import type { Clock } from '../platform/clock.js';
import { UnreadableMoneyEvent } from './internal-movements.js';
import { movementFromEvent } from './money-events.js';
import type { Movement } from './movements.js';
import { createRecentMovements, movementKey } from './recent-movements.js';
import { recordEventMovements, type EventMovement } from './store.js';

/**
 * The ledger's event handler: each money event (internal ones, and for one version the public
 * ones: money-events.ts) becomes at most one transaction, with its journal
 * entry, in the statement that also marks the event applied. Replaying any event (a redelivery, a
 * second replica, an operator re-publishing the stream) changes nothing: the event id is claimed
 * first, and the transactions table admits one movement of a kind per entity.
 */

/**
 * Money events the bus hands the handler at once (ConsumeOptions.concurrency). Those that arrive
 * while a batch is being written are recorded together by the next statement and acknowledged
 * together; far below the durable consumer's unacknowledged limit (JetStream's default 1,000).
 */
export const IN_FLIGHT = 128;

/**
 * How long the twin of a movement this process just recorded (recent-movements.ts) waits for the
 * next statement to ride on before it gets one of its own. Its acknowledgement waits as long,
 * far inside the consumer's ack_wait (30 s); at a few payments a second it rides on the next one.
 */
export const TWIN_WAIT_MS = 250;

/** Thrown when an event arrives before one it depends on; the bus delivers it again later. */
class NotReadyError extends Error {}

export interface LedgerConsumerDeps {
  pool: Pool;
  clock: Clock;
  logger: Logger;
  /** How long a lone event waits for company before its statement (LEDGER_RECORD_WAIT_MS). */
  waitMs: number;
}

type Waiting = { item: EventMovement; resolve: (ready: boolean) => void; reject: (err: unknown) => void };

export function createLedgerConsumer(deps: LedgerConsumerDeps) {
  // One statement per batch: it commits or fails as a whole, so a failure redelivers only its own
  // events, none of which was recorded. A lone event waits waitMs for company, so a trickle of
  // payments shares statements and acknowledgements; a full hand of events goes at once.
  const write = createBatcher(async (groups: EventMovement[][]) => {
    const ready = await recordEventMovements(deps.pool, groups.flat(), deps.clock.now());
    let at = 0;
    return groups.map((g) => ready.slice(at, (at += g.length)));
  }, IN_FLIGHT, deps.waitMs);
  const recent = createRecentMovements();
  // Movements whose statement is under way, by movementKey.
  const underWay = new Map<string, Promise<boolean>>();
  let twins: Waiting[] = [];
  let twinTimer: NodeJS.Timeout | undefined;

  // The twins waiting so far go in the same statement as `items`; each caller hears its own result.
  async function record(items: EventMovement[]): Promise<boolean[]> {
    const riders = twins;
    twins = [];
    clearTimeout(twinTimer);
    twinTimer = undefined;
    try {
      const ready = await write([...riders.map((w) => w.item), ...items]);
      riders.forEach((w, i) => w.resolve(ready[i]));
      items.forEach((item, i) => { if (ready[riders.length + i]) recent.add(item.movement); });
      return ready.slice(riders.length);
    } catch (err) {
      for (const w of riders) w.reject(err);
      throw err;
    }
  }

  // Its statement would find the movement taken: it rides on the next one rather than costing a round trip.
  function recordWithNext(item: EventMovement): Promise<boolean> {
    return new Promise((resolve, reject) => {
      twins.push({ item, resolve, reject });
      twinTimer ??= setTimeout(() => void record([]).catch(() => undefined), TWIN_WAIT_MS);
    });
  }

  async function recordItem(item: EventMovement): Promise<boolean> {
    // Its twin may be in the statement under way (both copies arrive together): wait to hear.
    const key = movementKey(item.movement);
    const earlier = underWay.get(key);
    if (earlier) await earlier.catch(() => undefined);
    if (recent.has(item.movement)) return recordWithNext(item);
    const writing = record([item]).then((r) => r[0]);
    underWay.set(key, writing);
    try {
      return await writing;
    } finally {
      if (underWay.get(key) === writing) underWay.delete(key);
    }
  }

  return async function handle(event: EventEnvelope): Promise<void> {
    let movement: Movement | undefined;
    try {
      movement = movementFromEvent(event);
    } catch (err) {
      // Redelivered, not dropped: the ledger that reads it (an upgrade) records it then.
      if (err instanceof UnreadableMoneyEvent) deps.logger.error({ id: event.id, type: event.type }, err.message);
      throw err;
    }
    if (!movement) return;
    const item = { event, movement };
    // What it waits for may have been in the same statement (a refund made within the wait of its
    // payment): once that committed, the next statement finds it, long before a redelivery would.
    const ready = await recordItem(item) || await recordItem(item);
    // A refund settles in its payment's provider batches, so it waits for the payment's
    // transaction, and a refund's reversal for the refund's; the rest of its batch is recorded meanwhile.
    if (!ready) {
      const waitsFor = movement.reversesRefund ? `refund ${movement.entityId}` : `payment ${movement.paymentId}`;
      throw new NotReadyError(`${event.type} ${event.id}: ${waitsFor} not recorded yet`);
    }
  };
}
