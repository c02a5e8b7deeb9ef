import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logger.js';
import { awaitingCustomer, commitChange, completeCustomerAction, type PaymentsStore } from '../payments/index.js';
import { createSweep } from './sweep.js';

/**
 * Fails payments whose customer never finished the action before its `next_action.expiresAt`
 * (code customer_action_expired, event payment.failed). Every replica runs it on the shared loop of
 * sweep.ts; a customer completing the page at the same moment either wins or finds it expired.
 * Due means `expires_at <= now` by the injected clock: the expiry the merchant was shown, so a
 * changed CUSTOMER_ACTION_TTL_MINUTES applies to new actions only. Sandbox pages only: on a
 * provider's own page the customer may have paid unseen, so reconciliation asks the provider first
 * (provider-actions.ts).
 */

export interface CustomerActionExpiryDeps {
  store: PaymentsStore;
  clock: Clock;
  relay: { kick(): void };
  logger: Logger;
  intervalMs: number;
  batchSize?: number;
}

export function createCustomerActionExpiry(deps: CustomerActionExpiryDeps) {
  const { store } = deps;
  const loop = createSweep({ ...deps, name: 'customer action expiry' }, async (tx, now, limit) => {
    const due = await store.claimExpiredCustomerActions(tx, now, limit);
    for (const payment of due) {
      const action = await store.openCustomerAction(tx, payment.id);
      if (!action) continue; // completed between the claim and the lock
      if (!awaitingCustomer(payment)) {
        // Cannot happen while every exit from the wait closes the action; closed so it is not claimed forever.
        deps.logger.warn({ paymentId: payment.id, status: payment.status }, 'customer action open on a payment not awaiting');
        await store.closeCustomerAction(tx, payment.id, 'expired', now);
        continue;
      }
      await commitChange(store, completeCustomerAction(payment, action, 'expire', now, 'expiry'), { tx });
    }
    return due.length;
  });

  return {
    /** Fails every payment whose customer action expired at `now`; returns how many were claimed. */
    sweepExpiredCustomerActions: (now: Date = deps.clock.now()) => loop.sweep(now),
    start: () => loop.start(() => deps.clock.now()),
    stop: () => loop.stop(),
  };
}

export type CustomerActionExpiry = ReturnType<typeof createCustomerActionExpiry>;
