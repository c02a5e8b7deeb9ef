import type { AuthorizeResult, HoldResult, NotificationSubject } from '../../connectors/index.js';
import {
  approve, awaitingCustomer, cancel, type Change, type CustomerActionRecord, fail, type PaymentRecord,
  providerCompletesCustomerAction, type TimelineEntry,
} from '../payments/index.js';
import { lateSuccess, type LateSuccess } from '../late-charges/index.js';
import type { Effect } from './store.js';

/**
 * What a verified provider notification does to the payment it names, pure of storage: it moves
 * the payment only forward, through the transitions every other path uses (the customer action's
 * completion, approve/fail of an attempt left unknown, cancel). A notification about a state the
 * payment already has confirms it; one the payment has moved past (a decline after a success, a
 * late or out-of-order delivery) is recorded and ignored. Either way the timeline says so.
 */

export interface Decision {
  effect: Exclude<Effect, 'unmatched'>;
  /** The state change to commit with the notification's record; none when it changes nothing. */
  change?: Change;
  /** The timeline entry that narrates the notification (always written). */
  entry: TimelineEntry;
  /**
   * A success for an attempt recorded failed after the payment moved on: the charge to return and
   * the entry that says so, recorded once per attempt (late-charges/); effect applied when new.
   */
  lateCharge?: LateSuccess;
}

/** Payment states that mean the provider took (or holds) the money. */
const APPROVED = new Set(['authorized', 'successful', 'captured', 'partially_refunded', 'refunded']);
const CAPTURED = new Set(['successful', 'captured', 'partially_refunded', 'refunded']);

type Notified = { eventId: string; provider: string };

function entry(n: Notified, subject: string, outcome: string, effect: Decision['effect'], status: string, attemptId?: string): TimelineEntry {
  return {
    type: 'provider.notification',
    title: `${n.provider} notification: ${subject} ${outcome} (${effect})`,
    ...(attemptId && { attemptId }),
    data: { event_id: n.eventId, provider: n.provider, subject, outcome, effect, status },
  };
}

/** Applied: the change's own entries narrate the move; the notification's entry leads them. */
function applied(change: Change, e: TimelineEntry): Decision {
  return { effect: 'applied', change: { ...change, timeline: [e, ...change.timeline] }, entry: e };
}

/** A payment's outcome: completes the customer's action, or settles an attempt the provider could not tell about. */
export function decidePayment(
  payment: PaymentRecord, attemptId: string, result: AuthorizeResult, action: CustomerActionRecord | undefined,
  at: Date, n: Notified,
): Decision {
  const before = payment.status;
  const note = (effect: Decision['effect']) => entry(n, 'payment', result.outcome, effect, before, attemptId);
  const attempt = payment.attempts.find((a) => a.id === attemptId);
  const decides = result.outcome !== 'unknown' && result.outcome !== 'requires_action';
  if (attempt && decides && awaitingCustomer(payment) && action?.attemptId === attemptId && !action.completedAt) {
    const change = providerCompletesCustomerAction(payment, action, result, at, { eventId: n.eventId });
    if (change) return applied(change, note('applied'));
  }
  if (attempt && decides && payment.status === 'processing' && attempt.status === 'unknown') {
    // Its request is long gone: like reconciliation's answer, it decides the payment, never a failover.
    const answer = { result: { ...result, providerPaymentId: result.providerPaymentId ?? attempt.providerPaymentId }, latencyMs: attempt.latencyMs ?? 0 };
    const s = { at, processingTimeMs: at.getTime() - payment.createdAt.getTime() };
    const change = result.outcome === 'success' ? approve(payment, attempt, answer, s) : fail(payment, attempt, answer, s);
    return applied(change, note('applied'));
  }
  const providerPaymentId = result.providerPaymentId ?? attempt?.providerPaymentId;
  // Failed as `timeout` only: its answer was lost and its status query said it never arrived, so the
  // payment moved on; the charge is returned (late-charges/). A success after the provider's own
  // decline or cancellation contradicts it and stays ignored, below, for an operator's look.
  if (attempt && result.outcome === 'success' && attempt.status === 'failed' && attempt.outcome === 'timeout' && providerPaymentId) {
    return { effect: 'applied', entry: note('applied'), lateCharge: lateSuccess(payment, attempt, providerPaymentId, n.provider, n.eventId) };
  }
  const agrees = result.outcome === 'success' ? APPROVED.has(before) : before === 'failed';
  return { effect: agrees ? 'confirmed' : 'ignored', entry: note(agrees ? 'confirmed' : 'ignored') };
}

/** A capture or a release reported by the provider: a release cancels a hold still open; anything else is narrated only. */
export function decideHold(
  payment: PaymentRecord, kind: 'capture' | 'cancel', result: HoldResult, at: Date, n: Notified,
): Decision {
  const before = payment.status;
  const note = (effect: Decision['effect']) => entry(n, kind, result.outcome, effect, before);
  const ok = result.outcome === 'success';
  if (kind === 'cancel' && ok && (before === 'authorized' || awaitingCustomer(payment))) {
    return applied(cancel(payment, undefined, at, 'provider'), note('applied'));
  }
  const agrees = ok && (kind === 'capture' ? CAPTURED.has(before) : before === 'cancelled');
  // A capture made at the provider outside this service names no amount here, and a capture or
  // release that failed after it was recorded would move the payment backwards: both narrated only.
  return { effect: agrees ? 'confirmed' : 'ignored', entry: note(agrees ? 'confirmed' : 'ignored') };
}

/** The subject's name and outcome as the notification's record and timeline entry show them. */
export function describeSubject(s: NotificationSubject): { subject: string; outcome: string } {
  if (s.kind === 'ignored') return { subject: 'ignored', outcome: 'none' };
  if (s.kind === 'dispute') return { subject: 'dispute', outcome: s.dispute.status };
  return { subject: s.kind, outcome: s.result.outcome };
}
