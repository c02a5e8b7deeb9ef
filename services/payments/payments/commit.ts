import { paymentJson } from '../../contract/index.js';
import type { Queryable } from '../../platform/db.js';
import { newId } from '../../platform/ids.js';
import { outboxRow } from '../../platform/outbox.js';
import type { RowWrite } from '../../platform/row-writes.js';
import type { AttemptRecord, TimelineEntry } from './model.js';
import { ATTEMPT_SETTLED, type PaymentsStore } from './store.js';
import { internalEvents } from './internal-events.js';
import { paymentToProto } from './to-proto.js';
import { sandboxDisputeOpening } from './sandbox-dispute-opening.js';
import { sandboxLateSuccess } from './sandbox-late-success.js';
import type { Change } from './transitions.js';

/**
 * The one way a decided change is written: the payment row, the touched attempts, the timeline, its
 * customer action and one outbox event per event, together. Each event also leaves an
 * `event.emitted` entry naming its id, the point from which webhooks fan it out.
 */

/**
 * An attempt's outcome was recorded by someone else (reconciliation) while its request was still
 * waiting to record it: that outcome stands, and the request answers the payment as stored.
 */
export class AttemptSettledElsewhere extends Error {
  constructor(readonly paymentId: string, attemptId: string) {
    super(`attempt ${attemptId} of payment ${paymentId} was settled while its request waited`);
  }
}

export interface CommitOptions {
  /** The caller's transaction, which holds the payment's row lock; without it the commit is its own. */
  tx?: Queryable;
  /**
   * After a provider call: the attempt it answered, which must still be in flight under the
   * payment's lock, else AttemptSettledElsewhere (reconciliation may have settled it if the request
   * stalled).
   */
  ifAttemptInFlight?: AttemptRecord;
  /** A keyed request binds its Idempotency-Key in the same statement (idempotency-bindings.ts). */
  binds?: RowWrite;
  /** Writes of the part's other tables that belong to this outcome (a method's network transaction id). */
  also?: RowWrite[];
  /** How long the change's events wait in the outbox for a later event of the payment (outboxRow). */
  holdMs?: number;
}

/**
 * Writes the change. Without a transaction of the caller's or a customer action to touch it is one
 * statement, one round trip, the check that its attempt is still in flight included, and it shares
 * that statement and its commit with concurrent requests' changes (store.commit).
 */
export async function commitChange(
  store: PaymentsStore, change: Change, { tx, ifAttemptInFlight, binds, also = [], holdMs = 0 }: CommitOptions = {},
): Promise<void> {
  const rows = [...(binds ? [binds] : []), ...changeRows(store, change, holdMs), ...also];
  const { payment, at } = change;
  const write = async (db: Queryable) => {
    if (ifAttemptInFlight && !(await store.attemptStillInFlight(db, payment.id, ifAttemptInFlight.id))) {
      throw new AttemptSettledElsewhere(payment.id, ifAttemptInFlight.id);
    }
    if (change.closesCustomerAction) await store.closeCustomerAction(db, payment.id, change.closesCustomerAction, at);
    await store.run(db, rows);
    if (change.opensCustomerAction) await store.insertCustomerAction(db, change.opensCustomerAction);
  };
  if (tx) return write(tx);
  if (change.opensCustomerAction || change.closesCustomerAction) return store.transaction(write);
  if (!ifAttemptInFlight) return store.commit({ rows });
  try {
    await store.commit({ rows, check: store.attemptInFlightGuard(payment.id, ifAttemptInFlight.id) });
  } catch (err) {
    if ((err as { code?: string }).code === ATTEMPT_SETTLED) throw new AttemptSettledElsewhere(payment.id, ifAttemptInFlight.id);
    throw err;
  }
}

function changeRows(store: PaymentsStore, change: Change, holdMs: number): RowWrite[] {
  const { payment, attempts, timeline, events, at } = change;
  // Serialised once: every payment event of one change carries the payment as it stands after it.
  let paymentObject: Record<string, unknown> | undefined;
  const emitted = events.map((e) => ({
    id: newId('evt', at),
    type: typeof e === 'string' ? e : e.type,
    object: () => (typeof e === 'string' ? (paymentObject ??= paymentJson(paymentToProto(payment))) : e.object),
  }));
  const entries: TimelineEntry[] = [
    ...timeline,
    ...emitted.map((e) => ({
      type: 'event.emitted', title: `Event ${e.type} emitted`, data: { event_id: e.id, event_type: e.type },
    })),
  ];
  return [
    ...store.savedRows(payment, attempts),
    ...store.timelineRows(payment, entries, at),
    ...emitted.map((e) => outboxRow({
      id: e.id, type: e.type, mode: payment.mode, merchant_id: payment.merchantId, project_id: payment.projectId,
      created_at: at.toISOString(), data: { object: e.object() },
    }, holdMs)),
    // Internal domain events (attempt.settled, payment.decided, refund.settled) in the same
    // statements, after the public ones; no timeline entry, since merchants never see them.
    ...internalEvents(change).map((e) => outboxRow(e, holdMs)),
    ...sandboxDisputeOpening(change),
    ...sandboxLateSuccess(store, change),
  ];
}
