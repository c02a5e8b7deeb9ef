import type { EventEnvelope, Logger, Pool } from '../shared/index.js';
import { withTransaction, type Clock } from '../shared/index.js';
import { movementFromEvent } from './movements.js';
import { claimEvent, createLedgerStore, insertTransaction, recordEventMovement } from './store.js';

/**
 * The ledger's event handler: each money event becomes at most one transaction, with its journal
 * entry, in one Postgres transaction that also marks the event applied. Replaying any event (a
 * redelivery, a second replica, an operator re-publishing the stream) changes nothing: the event
 * id is claimed first, and the transactions table admits one movement of a kind per entity.
 */

/** Thrown when an event arrives before one it depends on; the bus delivers it again later. */
class NotReadyError extends Error {}

export interface LedgerConsumerDeps {
  pool: Pool;
  clock: Clock;
  logger: Logger;
}

export function createLedgerConsumer(deps: LedgerConsumerDeps) {
  const store = createLedgerStore(deps.pool);

  return async function handle(event: EventEnvelope): Promise<void> {
    const movement = movementFromEvent(event);
    if (!movement) return;
    const { inheritsFromPayment, ...fields } = movement;
    if (!inheritsFromPayment) {
      // Payments and payouts: one statement, the hot path of every payment.
      await recordEventMovement(deps.pool, event, { ...fields, settlementId: null }, deps.clock.now());
      return;
    }
    // Refunds go back through the provider that took the payment, so they settle in its batches:
    // they read the payment's transaction first, inside the transaction that claims the event.
    await withTransaction(deps.pool, async (tx) => {
      const at = deps.clock.now();
      if (!(await claimEvent(tx, event.id, event.type, at))) return;
      const payment = await store.paymentTransaction(tx, movement.scope, movement.paymentId!);
      if (!payment) throw new NotReadyError(`${event.type} ${event.id}: payment ${movement.paymentId} not recorded yet`);
      const { providerName, providerAccountId, paymentMethod, country } = payment;
      await insertTransaction(tx, {
        ...fields, providerName, providerAccountId, paymentMethod, country, settlementId: null,
      }, event.id, at);
    });
  };
}
