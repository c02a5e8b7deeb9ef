import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import { paymentJson } from '../shared/contract/index.js';
import {
  enqueueEventStatement, newId, runAsOne, serviceError, type Binding, type Clock, type Queryable, type Statement,
} from '../shared/index.js';
import type { AttemptRecord, PaymentRecord, TimelineEntry } from './model.js';
import { assertAllowed, awaitingCustomer } from './state-machine.js';
import type { PaymentsStore } from './store.js';
import { paymentToProto } from './to-proto.js';

/**
 * What happens to an existing payment after its provider answered: capture, cancel and
 * authorization expiry. The rules are pure functions over a PaymentRecord (tested beside this
 * file); `createLifecycle` runs each one inside a transaction that holds the payment's row lock,
 * so of two concurrent requests the second sees the first one's result and is refused.
 */

/** A decided state change: the record is already mutated; these go with it into one commit. */
export interface Change {
  attempts: AttemptRecord[];
  timeline: TimelineEntry[];
  /** Event types about the payment, or events about another object of it (a refund). */
  events: Array<string | { type: string; object: Record<string, unknown> }>;
  /** Closes the payment's open customer action with this outcome (its page stops offering to pay). */
  closesCustomerAction?: 'approved' | 'declined' | 'expired' | 'cancelled';
}

/**
 * A provider approved the payment. Automatic capture completes it; manual capture only holds the
 * funds until the merchant captures or cancels, or the authorization expires.
 * The caller (the attempt loop) stamps status and times; this says which status and event.
 */
export function applyApproval(
  payment: PaymentRecord, attempt: AttemptRecord, timeline: TimelineEntry[],
): { status: 'successful' | 'authorized'; event: string } {
  if (payment.captureMethod !== 'manual') {
    payment.capturedAmount = payment.amount;
    timeline.push({ type: 'payment.successful', title: 'Payment successful' });
    return { status: 'successful', event: 'payment.successful' };
  }
  payment.capturedAmount = 0n;
  attempt.status = 'authorized';
  // The attempt's own timeline row was written as "succeeded" a moment ago; it held the funds only.
  for (const t of timeline) if (t.attemptId === attempt.id && t.type === 'attempt.succeeded') t.type = 'attempt.authorized';
  timeline.push({ type: 'payment.authorized', title: 'Funds authorized, awaiting capture' });
  return { status: 'authorized', event: 'payment.authorized' };
}

/** The attempts whose provider-side hold or customer wait ends with the payment's state. */
function openAttempts(payment: PaymentRecord): AttemptRecord[] {
  return payment.attempts.filter(
    (a) => a.status === 'authorized' || (a.status === 'processing' && a.outcome === 'requires_action'),
  );
}

/**
 * Captures `requested` (default: all of it) of an authorized payment. One capture per
 * authorization: a partial capture releases the rest. The contract has no payment.captured event;
 * capture completes the payment, which is what payment.successful announces.
 */
export function capture(payment: PaymentRecord, requested: bigint | undefined, at: Date): Change {
  if (requested !== undefined && requested < 1n) {
    throw serviceError('validation_error', 'amount must be at least 1', { param: 'amount' });
  }
  assertAllowed('capture', payment);
  const amount = requested ?? payment.amount;
  if (amount > payment.amount) {
    throw serviceError(
      'invalid_state_transition',
      `Payment ${payment.id} has ${payment.amount} authorized; ${amount} cannot be captured.`,
      { param: 'amount' },
    );
  }
  payment.status = 'captured';
  payment.capturedAmount = amount;
  payment.updatedAt = at;
  const attempts = payment.attempts.filter((a) => a.status === 'authorized');
  for (const a of attempts) {
    a.status = 'succeeded';
    a.updatedAt = at;
  }
  const released = payment.amount - amount;
  return {
    attempts,
    timeline: [{
      type: 'payment.captured',
      title: released > 0n ? `Captured ${amount} of ${payment.amount}; the rest released` : 'Payment captured',
      data: { amount: Number(amount), released: Number(released) },
    }],
    events: ['payment.successful'],
  };
}

function toCancelled(payment: PaymentRecord, at: Date): AttemptRecord[] {
  payment.status = 'cancelled';
  payment.updatedAt = at;
  payment.nextAction = null;
  const attempts = openAttempts(payment);
  for (const a of attempts) {
    a.status = 'cancelled';
    a.updatedAt = at;
  }
  return attempts;
}

/** The merchant cancels; the optional reason is kept on the timeline. */
export function cancel(payment: PaymentRecord, reason: string | undefined, at: Date): Change {
  assertAllowed('cancel', payment);
  const customerWaiting = awaitingCustomer(payment);
  const attempts = toCancelled(payment, at);
  return {
    ...(customerWaiting && { closesCustomerAction: 'cancelled' as const }),
    attempts,
    timeline: [{
      type: 'payment.cancelled',
      title: 'Payment cancelled',
      description: reason,
      data: { by: 'merchant', ...(reason !== undefined && { reason }) },
    }],
    events: ['payment.cancelled'],
  };
}

/** An authorization nobody captured in time: the hold is released, as a cancel would. */
export function expireAuthorization(payment: PaymentRecord, ttlHours: number, at: Date): Change {
  assertAllowed('expire_authorization', payment);
  const attempts = toCancelled(payment, at);
  return {
    attempts,
    timeline: [{
      type: 'payment.cancelled',
      title: 'Authorization expired',
      description: `Not captured within ${ttlHours} hours.`,
      data: { by: 'expiry', ttl_hours: ttlHours },
    }],
    events: ['payment.cancelled'],
  };
}

/**
 * The writes of a decided change, to commit together: the payment row, the touched attempts, the
 * timeline and one outbox event per event. Each event also leaves an `event.emitted` entry
 * naming its id, the point from which webhooks fan it out.
 */
export function changeStatements(store: PaymentsStore, payment: PaymentRecord, change: Change, at: Date): Statement[] {
  // Serialised once: every payment event of one change carries the payment as it stands after it.
  let paymentObject: Record<string, unknown> | undefined;
  const emitted = change.events.map((e) => ({
    id: newId('evt', at),
    type: typeof e === 'string' ? e : e.type,
    object: () => (typeof e === 'string' ? (paymentObject ??= paymentJson(paymentToProto(payment))) : e.object),
  }));
  const timeline: TimelineEntry[] = [
    ...change.timeline,
    ...emitted.map((e) => ({
      type: 'event.emitted', title: `Event ${e.type} emitted`, data: { event_id: e.id, event_type: e.type },
    })),
  ];
  return [
    ...store.saveStatements(payment, change.attempts),
    ...store.timelineStatements(payment, timeline, at),
    ...emitted.map((e) => enqueueEventStatement({
      id: e.id, type: e.type, mode: payment.mode, merchant_id: payment.merchantId, project_id: payment.projectId,
      created_at: at.toISOString(), data: { object: e.object() },
    })),
  ];
}

/**
 * Writes a decided change inside the caller's transaction (which holds the payment's row lock),
 * with `also`'s statements (a keyed request's binding) in the same statement.
 */
export async function writeChange(
  store: PaymentsStore, tx: Queryable, payment: PaymentRecord, change: Change, at: Date, also: Statement[] = [],
): Promise<void> {
  if (change.closesCustomerAction) await store.closeCustomerAction(tx, payment.id, change.closesCustomerAction, at);
  await runAsOne(tx, [...also, ...changeStatements(store, payment, change, at)]);
}

export interface LifecycleDeps {
  store: PaymentsStore;
  clock: Clock;
  relay: { kick(): void };
  /** How long a capture's or cancel's Idempotency-Key stays bound (IDEMPOTENCY_TTL_HOURS). */
  idempotencyTtlMs: number;
}

export function createLifecycle(deps: LifecycleDeps) {
  const { store, clock } = deps;

  /**
   * Lock, re-read, decide, write: all in one transaction; the relay is woken after the commit. A
   * keyed request binds its key in that transaction; its retry, finding the key bound under the
   * same lock, answers the payment as it stands instead of deciding again.
   */
  async function change(
    scope: Scope, id: string, decide: (p: PaymentRecord, at: Date) => Change, binding?: Binding,
  ): Promise<PaymentRecord> {
    const payment = await store.transaction(async (tx) => {
      const p = await store.getForUpdate(tx, scope, id);
      if (!p) throw serviceError('resource_not_found', `No payment ${id}`, { param: 'id' });
      const at = clock.now();
      if (binding && (await store.boundResource(scope, binding, at, tx))) return p;
      const binds = binding ? [store.bindStatement(scope, { ...binding, resourceId: p.id }, at, deps.idempotencyTtlMs)] : [];
      await writeChange(store, tx, p, decide(p, at), at, binds);
      return p;
    });
    deps.relay.kick();
    return payment;
  }

  return {
    capture: (scope: Scope, id: string, amount?: bigint, binding?: Binding) =>
      change(scope, id, (p, at) => capture(p, amount, at), binding),
    cancel: (scope: Scope, id: string, reason?: string, binding?: Binding) =>
      change(scope, id, (p, at) => cancel(p, reason, at), binding),
  };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;
