import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import { formatMoney, minorToJson } from '../../contract/index.js';
import type { Clock } from '../../platform/clock.js';
import type { Binding } from '../../platform/idempotency-bindings.js';
import { feeFor, serviceError } from '../../contract/index.js';
import { commitChange } from './commit.js';
import { atProvider, type HeldFundsDeps, type HoldOperation } from './held-funds.js';
import type { AttemptRecord, PaymentRecord } from './model.js';
import { assertAllowed, awaitingCustomer } from './state-machine.js';
import type { PaymentsStore } from './store.js';
import type { Change } from './transitions.js';

/**
 * What happens to a decided payment: capture, cancel and authorization expiry (how a provider's or
 * customer's answer decides it is in transitions.ts). The rules are pure functions over a PaymentRecord (tested beside this
 * file); `createLifecycle` runs each one inside a transaction that holds the payment's row lock,
 * so of two concurrent requests the second sees the first one's result and is refused.
 */

/** The attempts whose provider-side hold or customer wait ends with the payment's state. */
function openAttempts(payment: PaymentRecord): AttemptRecord[] {
  return payment.attempts.filter(
    (a) => a.status === 'authorized' || (a.status === 'processing' && a.outcome === 'requires_action'),
  );
}

/**
 * What the provider charges when `captured` of an attempt's authorization of `authorized` is
 * captured. The whole of it: the provider's own quote, which priced exactly that amount. Less: the
 * account's agreed pricing as routed (feeFor, the one fee formula) on what was captured, since no
 * provider quoted that amount; the demo providers quote by the same formula, so both agree there.
 * An attempt recorded before its pricing was kept can only keep its quote.
 */
export function captureFee(attempt: AttemptRecord, authorized: bigint, captured: bigint): bigint {
  if (captured === authorized || attempt.feeFixed == null || attempt.feeBps == null) return attempt.feeAmount;
  return feeFor({ feeFixed: attempt.feeFixed, feeBps: attempt.feeBps }, captured);
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
  // The state allows a capture; it is the amount that does not fit: a validation failure of it.
  if (amount > payment.amount) {
    throw serviceError('validation_error', `Payment ${payment.id} has ${formatMoney(payment.amount, payment.currency)} authorized; ${formatMoney(amount, payment.currency)} cannot be captured.`, {
      param: 'amount',
    });
  }
  payment.status = 'captured';
  payment.capturedAmount = amount;
  payment.updatedAt = at;
  const attempts = payment.attempts.filter((a) => a.status === 'authorized');
  for (const a of attempts) {
    a.status = 'succeeded';
    a.feeAmount = captureFee(a, payment.amount, amount);
    a.updatedAt = at;
  }
  // The fee is charged on what was captured: the released rest costs nothing.
  payment.feeAmount = attempts.reduce((total, a) => total + a.feeAmount, 0n);
  const released = payment.amount - amount;
  return {
    payment,
    at,
    attempts,
    timeline: [{
      type: 'payment.captured',
      title: released > 0n
        ? `Captured ${formatMoney(amount, payment.currency)} of ${formatMoney(payment.amount, payment.currency)}; the rest released`
        : 'Payment captured',
      data: { amount: minorToJson(amount), released: minorToJson(released) },
    }],
    events: ['payment.successful'],
  };
}

/** A released hold or abandoned wait is never charged: its quoted fee goes to 0, the payment's too. */
function toCancelled(payment: PaymentRecord, at: Date): AttemptRecord[] {
  payment.status = 'cancelled';
  payment.updatedAt = at;
  payment.nextAction = null;
  payment.feeAmount = 0n;
  const attempts = openAttempts(payment);
  for (const a of attempts) {
    a.status = 'cancelled';
    a.feeAmount = 0n;
    a.updatedAt = at;
  }
  return attempts;
}

/**
 * The merchant cancels (the optional reason is kept on the timeline), or the provider's
 * notification reports the hold released or the wait abandoned at its end.
 */
export function cancel(
  payment: PaymentRecord, reason: string | undefined, at: Date, by: 'merchant' | 'provider' = 'merchant',
): Change {
  assertAllowed('cancel', payment);
  const customerWaiting = awaitingCustomer(payment);
  const attempts = toCancelled(payment, at);
  return {
    ...(customerWaiting && { closesCustomerAction: 'cancelled' as const }),
    payment,
    at,
    attempts,
    timeline: [{
      type: 'payment.cancelled',
      title: by === 'provider' ? 'Payment cancelled at the provider' : 'Payment cancelled',
      data: { by, ...(reason !== undefined && { reason }) },
    }],
    events: ['payment.cancelled'],
  };
}

/** An authorization nobody captured in time: the hold is released, as a cancel would. */
export function expireAuthorization(payment: PaymentRecord, ttlHours: number, at: Date): Change {
  assertAllowed('expire_authorization', payment);
  const attempts = toCancelled(payment, at);
  return {
    payment,
    at,
    attempts,
    timeline: [{
      type: 'payment.cancelled',
      title: 'Authorization expired',
      data: { by: 'expiry', ttl_hours: ttlHours },
    }],
    events: ['payment.cancelled'],
  };
}

export interface LifecycleDeps extends HeldFundsDeps {
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
      const binds = binding && store.bindingRow(scope, { ...binding, resourceId: p.id }, at, deps.idempotencyTtlMs);
      await commitChange(store, decide(p, at), { tx, binds });
      return p;
    });
    deps.relay.kick();
    return payment;
  }

  /**
   * Before the change: a hold at a provider that manages holds is captured or released there
   * first, outside any transaction (no row lock across a provider call). The rule is tried on a
   * copy beforehand, so a request the state refuses never reaches the provider; a keyed retry
   * whose key is already bound answers the payment as it stands without asking again.
   */
  async function throughProvider(
    scope: Scope, id: string, op: HoldOperation, decide: (p: PaymentRecord, at: Date) => Change, binding?: Binding,
  ): Promise<PaymentRecord> {
    const p = await store.get(scope, id);
    if (p && !(binding && (await store.boundResource(scope, binding, clock.now())))) {
      const tried = decide(structuredClone(p), clock.now());
      const held = op === 'capture' ? p.attempts.find((a) => a.status === 'authorized') : openAttempts(p)[0];
      await atProvider(deps, p, held, op, op === 'capture' ? tried.payment.capturedAmount : p.amount);
    }
    return change(scope, id, decide, binding);
  }

  return {
    capture: (scope: Scope, id: string, amount?: bigint, binding?: Binding) =>
      throughProvider(scope, id, 'capture', (p, at) => capture(p, amount, at), binding),
    cancel: (scope: Scope, id: string, reason?: string, binding?: Binding) =>
      throughProvider(scope, id, 'cancel', (p, at) => cancel(p, reason, at), binding),
  };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;
