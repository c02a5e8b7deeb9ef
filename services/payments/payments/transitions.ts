import type { PlanPaymentResponse, RouteCandidate } from '../../../proto/gen/svc/routing/v1/routing_pb.js';
import { formatMoney, minorToJson } from '../../contract/index.js';
import { newId } from '../../platform/ids.js';
import type { InternalObject } from '../../platform/internal-events.js';
import { newAttempt, nextStep, paymentFailure, recordAnswer, type ProviderAnswer } from './attempt-outcomes.js';
import { openCustomerAction, type CustomerActionSettings } from './customer-action-required.js';
import type { AttemptRecord, CustomerActionRecord, FailureJson, PaymentRecord, TimelineEntry } from './model.js';
import { routeReasons } from './route-reasons.js';
import { statusAfterRefunds } from './state-machine.js';

/**
 * Where a payment changes state after a provider (or its customer) answered: every path (the
 * request's attempt loop, reconciliation, the customer's page and its expiry) decides through these
 * functions. Each is pure of storage: it moves the records it is given and returns the one Change
 * to commit (commit.ts), with every timeline entry written as it will stay. A refund's outcome
 * moves its payment's amounts here too (refundSettled, refundReversed); capture, cancel and
 * authorization expiry, which follow a decided payment, are in lifecycle.ts.
 */

/** A decided state change: the records are already moved; all of it commits together, at `at`. */
export interface Change {
  payment: PaymentRecord;
  attempts: AttemptRecord[];
  timeline: TimelineEntry[];
  /** Event types about the payment, or events about another object of it (a refund). */
  events: Array<string | { type: string; object: Record<string, unknown> }>;
  /**
   * Internal events about another object of the payment (a refund's refund.settled), written after
   * the public ones; the payment's own and its attempts' are derived from the change (internal-events.ts).
   */
  internal?: InternalObject[];
  at: Date;
  /** Opens the customer's action (asynchronous rails) in the same commit. */
  opensCustomerAction?: CustomerActionRecord;
  /** Closes the payment's open customer action with this outcome (its page stops offering to pay). */
  closesCustomerAction?: 'approved' | 'declined' | 'expired' | 'cancelled';
}

/** When an answer settles: its time, and how long the payment took (kept as it was when undefined). */
export interface Settling {
  at: Date;
  processingTimeMs?: number;
  /** Who asked the provider when it was not the request itself. */
  by?: 'reconciliation';
}

/** Manual capture only holds the funds: its approved attempt is `authorized`, not `succeeded`. */
const approvedAs = (p: PaymentRecord) => (p.captureMethod === 'manual' ? 'authorized' : 'succeeded');

/** The payment is decided (or waits outside the request): stamps the times every such change shares. */
function decided(payment: PaymentRecord, status: string, failure: FailureJson | null, s: Settling): void {
  payment.status = status;
  payment.failure = failure;
  payment.updatedAt = s.at;
  payment.processedAt = s.at;
  if (s.processingTimeMs !== undefined) payment.processingTimeMs = s.processingTimeMs;
}

/** The failure categories after which another provider is tried (attempt-outcomes.ts, nextStep). */
const FAILS_OVER = new Set(['soft', 'technical']);

/** " Not tried: no credential for Adyen." for a payment whose credential some accounts could not use. */
function skippedNote(payment: PaymentRecord): string {
  const reasons = [...new Set((payment.routeSkipped ?? []).map((k) => k.reason))];
  return reasons.length > 0 ? ` Not tried: ${reasons.join('; ')}.` : '';
}

/** Routes the payment to a candidate: a new attempt, announced in the timeline. */
function startAttempt(payment: PaymentRecord, c: RouteCandidate, at: Date, timeline: TimelineEntry[]): AttemptRecord {
  const attempt = newAttempt(payment, c, newId('att', at), at);
  payment.attempts.push(attempt);
  payment.attemptCount = payment.attempts.length;
  payment.providerId = c.providerId;
  payment.providerCode = c.providerCode;
  payment.providerName = c.providerName;
  payment.providerAccountId = c.providerAccountId;
  payment.updatedAt = at;
  timeline.push({
    type: 'attempt.started',
    title: `Attempt ${attempt.attemptNumber} at ${c.providerName}`,
    attemptId: attempt.id,
    data: { provider_account_id: c.providerAccountId, path: c.vault ? 'forwarded' : 'direct', ...(c.vault && { vault: c.vault }) },
  });
  return attempt;
}

/**
 * A new payment with its plan: blocked by risk or without a route it fails at once (`at`, after
 * planning); otherwise its first attempt starts, durable (at its creation time) before any provider
 * is called.
 */
export function open(payment: PaymentRecord, plan: PlanPaymentResponse, s: Settling): Change {
  const timeline: TimelineEntry[] = [
    { type: 'payment.created', title: 'Payment created', data: { amount: minorToJson(payment.amount), currency: payment.currency } },
    {
      type: 'risk.evaluated',
      title: `Risk score ${plan.risk?.score ?? 0}`,
      data: { decision_id: plan.risk?.decisionId, outcome: plan.risk?.outcome, reasons: plan.risk?.reasons ?? [] },
    },
  ];
  const refused = (title: string, failure: FailureJson): Change => {
    timeline.push({ type: 'payment.failed', title });
    decided(payment, 'failed', failure, s);
    return { payment, attempts: [], timeline, events: ['payment.created', 'payment.failed'], at: s.at };
  };
  if (plan.risk?.outcome === 'block') {
    return refused('Blocked by risk rules', {
      code: 'risk_blocked', category: 'policy', message: 'The payment was blocked by risk rules.',
    });
  }
  const candidates = plan.routing?.candidates ?? [];
  timeline.push({
    type: 'routing.decided',
    title: `Route planned by rule "${payment.routingRule}"`,
    data: {
      decision_id: payment.routingDecisionId,
      rule: payment.routingRule,
      candidates: candidates.map((c) => c.providerCode),
      ...(payment.routeSkipped?.length > 0 && { skipped: payment.routeSkipped }),
      ...routeReasons(plan.routing),
    },
  });
  if (candidates.length === 0) {
    return refused('No eligible provider', {
      code: 'no_eligible_provider',
      category: 'policy',
      message: `No provider connected to this account can process this payment.${skippedNote(payment)}`,
    });
  }
  const attempt = startAttempt(payment, candidates[0], payment.createdAt, timeline);
  return { payment, attempts: [attempt], timeline, events: ['payment.created'], at: payment.createdAt };
}

/**
 * The provider approved. Automatic capture completes the payment; manual capture only holds the
 * funds until the merchant captures or cancels, or the authorization expires.
 */
export function approve(payment: PaymentRecord, attempt: AttemptRecord, answer: ProviderAnswer, s: Settling): Change {
  const timeline: TimelineEntry[] = [];
  recordAnswer(attempt, answer, s.at, timeline, { approvedAs: approvedAs(payment), by: s.by });
  payment.providerPaymentId = attempt.providerPaymentId;
  payment.feeAmount = attempt.feeAmount;
  payment.nextAction = null;
  const manual = payment.captureMethod === 'manual';
  payment.capturedAmount = manual ? 0n : payment.amount;
  decided(payment, manual ? 'authorized' : 'successful', null, s);
  timeline.push(manual
    ? { type: 'payment.authorized', title: 'Funds authorized, awaiting capture' }
    : { type: 'payment.successful', title: 'Payment successful' });
  return { payment, attempts: [attempt], timeline, events: [`payment.${payment.status}`], at: s.at };
}

/**
 * The attempt failed and no other provider is tried. The payment reports `failure`, by default the
 * strongest of its attempts' (paymentFailure).
 */
export function fail(
  payment: PaymentRecord, attempt: AttemptRecord, answer: ProviderAnswer, s: Settling & { failure?: FailureJson },
): Change {
  const timeline: TimelineEntry[] = [];
  recordAnswer(attempt, answer, s.at, timeline, { by: s.by, failure: s.failure });
  const failed = s.failure ?? paymentFailure(payment.attempts);
  // After a failure another provider could have taken over from, the providers its credential could
  // not reach are named: a merchant sees why none did.
  const failure = failed && FAILS_OVER.has(failed.category) ? { ...failed, message: `${failed.message}${skippedNote(payment)}` } : failed;
  payment.nextAction = null;
  decided(payment, 'failed', failure, s);
  timeline.push({
    type: 'payment.failed', title: 'Payment failed',
    data: { code: failure?.code, category: failure?.category, ...(failure?.declineReason && { decline_reason: failure.declineReason }) },
  });
  return { payment, attempts: [attempt], timeline, events: ['payment.failed'], at: s.at };
}

/**
 * The outcome stays open at the provider (unknown, or the customer's turn): no other provider is
 * tried, since the first may yet charge. The payment waits in `processing`, undecided.
 */
function await_(
  payment: PaymentRecord, attempt: AttemptRecord, answer: ProviderAnswer, s: Settling,
  customer?: { settings: CustomerActionSettings },
): Change {
  const timeline: TimelineEntry[] = [];
  recordAnswer(attempt, answer, s.at, timeline);
  payment.providerPaymentId = attempt.providerPaymentId;
  decided(payment, 'processing', null, s);
  payment.processedAt = null;
  const required = answer.result.customerAction;
  const action = customer && required && openCustomerAction(payment, attempt, required, customer.settings, s.at, timeline);
  timeline.push({ type: 'payment.processing', title: action ? 'Awaiting the customer' : "Awaiting the provider's outcome" });
  return {
    payment, attempts: [attempt], timeline, events: ['payment.processing'], at: s.at,
    ...(action && { opensCustomerAction: action }),
  };
}

/** The provider asks for the customer (redirect, QR code, bank details): the payment shows next_action. */
export function awaitCustomer(
  payment: PaymentRecord, attempt: AttemptRecord, answer: ProviderAnswer, s: Settling & { customerActions: CustomerActionSettings },
): Change {
  return await_(payment, attempt, answer, s, { settings: s.customerActions });
}

/** The provider could not tell the outcome: reconciliation asks again later. */
export function awaitProvider(payment: PaymentRecord, attempt: AttemptRecord, answer: ProviderAnswer, s: Settling): Change {
  return await_(payment, attempt, answer, s);
}

/** Nobody was charged and another provider can take the payment: its next attempt starts. */
export function failOver(
  payment: PaymentRecord, attempt: AttemptRecord, answer: ProviderAnswer, next: RouteCandidate, s: Settling,
): Change {
  const timeline: TimelineEntry[] = [];
  recordAnswer(attempt, answer, s.at, timeline);
  timeline.push({
    type: 'failover',
    title: `Failing over from ${attempt.providerName} to ${next.providerName}`,
    attemptId: attempt.id,
    data: { reason: attempt.outcome, from_provider: attempt.providerCode, to_provider: next.providerCode },
  });
  const started = startAttempt(payment, next, s.at, timeline);
  return { payment, attempts: [attempt, started], timeline, events: [], at: s.at };
}

/**
 * What an answer does to a payment its request is still deciding: the attempt loop's one step.
 * `next` is the route's next candidate, if any.
 */
export function settleAttempt(
  payment: PaymentRecord, attempt: AttemptRecord, answer: ProviderAnswer,
  s: Settling & { next?: RouteCandidate; customerActions: CustomerActionSettings },
): Change {
  switch (nextStep(answer.result.outcome, s.next !== undefined)) {
    case 'succeed':
      return approve(payment, attempt, answer, s);
    case 'fail':
      return fail(payment, attempt, answer, s);
    case 'fail_over':
      return failOver(payment, attempt, answer, s.next!, s);
    case 'await_provider':
      return answer.result.outcome === 'requires_action' && answer.result.customerAction
        ? awaitCustomer(payment, attempt, answer, s)
        : awaitProvider(payment, attempt, answer, s);
  }
}

/**
 * What a late answer (reconciliation's status query) does: a definite one decides the payment, never
 * a failover (its request is long gone, and the merchant decides); undefined while the provider
 * still cannot tell, or holds the payment for the customer.
 */
export function settleLate(payment: PaymentRecord, attempt: AttemptRecord, answer: ProviderAnswer, at: Date): Change | undefined {
  const outcome = answer.result.outcome;
  if (outcome === 'unknown' || outcome === 'requires_action') return undefined;
  // The attempt keeps the latency of its own call; the status query's is in its timeline entry.
  const late = { ...answer, latencyMs: attempt.latencyMs ?? answer.latencyMs };
  const s: Settling = { at, processingTimeMs: at.getTime() - payment.createdAt.getTime(), by: 'reconciliation' };
  return outcome === 'success' ? approve(payment, attempt, late, s) : fail(payment, attempt, late, s);
}

/** What a refund's outcome adds to its refund's own Change: the payment's entries and events. */
export type RefundEffect = Pick<Change, 'timeline' | 'events'>;

/** A refund the provider accepted counts as refunded: the payment moves by statusAfterRefunds. */
export function refundSettled(payment: PaymentRecord, amount: bigint, at: Date): RefundEffect {
  payment.refundedAmount += amount;
  payment.status = statusAfterRefunds(payment);
  payment.updatedAt = at;
  return {
    timeline: [{
      type: `payment.${payment.status}`,
      title: payment.status === 'refunded' ? 'Payment fully refunded' : 'Payment partially refunded',
      data: { refunded_amount: minorToJson(payment.refundedAmount) },
    }],
    events: ['payment.refunded'],
  };
}

/**
 * A refund counted as refunded fails at the provider afterwards: the customer never got the money,
 * so its amount is no longer refunded and is refundable again, and the payment goes back by the
 * same rule (refunded to partially_refunded, or to successful/captured when nothing else is
 * refunded). The caller's guard (the refund moving successful → failed once, under the payment's
 * lock) makes it happen once. No payment event: payment.refunded means a refund settled, and
 * payment.successful would announce a second charge; refund.failed, naming the payment, is the
 * event, and the payment as it now stands is what GET /v1/payments/{id} answers.
 */
export function refundReversed(payment: PaymentRecord, refund: { id: string; amount: bigint }, at: Date): RefundEffect {
  if (refund.amount > payment.refundedAmount) {
    // Cannot happen while every successful refund was counted; refusing keeps the books from going negative.
    throw new Error(`refund ${refund.id} of ${refund.amount} exceeds payment ${payment.id}'s refunded amount ${payment.refundedAmount}`);
  }
  const from = payment.status;
  payment.refundedAmount -= refund.amount;
  payment.status = statusAfterRefunds(payment);
  payment.updatedAt = at;
  return {
    timeline: [{
      type: 'payment.refund_reversed',
      title: `Refund of ${formatMoney(refund.amount, payment.currency)} no longer counted: `
        + `${formatMoney(payment.refundedAmount, payment.currency)} refunded, ${payment.status}`,
      data: {
        refund_id: refund.id, amount: minorToJson(refund.amount), refunded_amount: minorToJson(payment.refundedAmount),
        from_status: from, status: payment.status,
      },
    }],
    events: [],
  };
}
