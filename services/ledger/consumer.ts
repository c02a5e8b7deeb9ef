import type { Logger, Pool } from '../platform/index.js';
import type { EventEnvelope } from '../contract/index.js';
import { createBatcher, type Clock } from '../platform/index.js';
import { UnreadableMoneyEvent } from './internal-movements.js';
import { movementFromEvent } from './money-events.js';
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

/** Thrown when an event arrives before one it depends on; the bus delivers it again later. */
class NotReadyError extends Error {}

export interface LedgerConsumerDeps {
  pool: Pool;
  clock: Clock;
  logger: Logger;
}

export function createLedgerConsumer(deps: LedgerConsumerDeps) {
  // One statement per batch: it commits or fails as a whole, so a failure redelivers only its own
  // events, none of which was recorded.
  const record = createBatcher((items: EventMovement[]) => recordEventMovements(deps.pool, items, deps.clock.now()));

  return async function handle(event: EventEnvelope): Promise<void> {
    let movement;
    try {
      movement = movementFromEvent(event);
    } catch (err) {
      // Redelivered, not dropped: the ledger that reads it (an upgrade) records it then.
      if (err instanceof UnreadableMoneyEvent) deps.logger.error({ id: event.id, type: event.type }, err.message);
      throw err;
    }
    if (!movement) return;
    // A refund settles in its payment's provider batches, so it waits for the payment's
    // transaction, and a refund's reversal for the refund's; the rest of its batch is recorded meanwhile.
    if (!(await record({ event, movement }))) {
      const waitsFor = movement.reversesRefund ? `refund ${movement.entityId}` : `payment ${movement.paymentId}`;
      throw new NotReadyError(`${event.type} ${event.id}: ${waitsFor} not recorded yet`);
    }
  };
}
