import { create, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Logger } from 'pino';
import { ScopeSchema, type Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import { RefundSchema, type Refund } from '../../../proto/gen/svc/payments/v1/refunds_pb.js';
import { formatMoney, minorToJson, REFUND_FAILED_AFTER_ACCEPTANCE, refundJson } from '../../contract/index.js';
import { REFUND_SCENARIOS as CONTRACT_REFUND_SCENARIOS } from '../../contract/enums.js';
import type { Metrics } from '../../platform/metrics.js';
import type { Clock } from '../../platform/clock.js';
import type { Pool, Queryable } from '../../platform/db.js';
import { abandonedAfterMs, withDeadline } from '../../platform/deadline.js';
import { isBindingConflict, stillInProgress, type Binding } from '../../platform/idempotency-bindings.js';
import { newId } from '../../platform/ids.js';
import { serviceError } from '../../contract/index.js';
import type { ConnectorRegistry, RefundOutcome, RefundResult } from '../../connectors/index.js';
import {
  assertAllowed, type Change, commitChange, type FailureJson, type PaymentRecord, type PaymentsStore, refundReversed,
  refundSettled, type TimelineEntry,
} from '../payments/index.js';
import { refundSettledEvent } from './refund-settled.js';
import { createRefundStore, type RefundRecord } from './store.js';

/**
 * Refunds of completed payments, in three steps so the refundable rest holds under concurrent
 * requests without holding a row lock across a provider call:
 *  1. reserve: lock the payment, check its state and rest, insert the refund as `processing`
 *     (its amount now counts against the rest), commit;
 *  2. call the provider that took the payment, outside any transaction;
 *  3. settle: lock the payment again, record the outcome; on success add the amount to the
 *     payment's refunded_amount and move it to partially_refunded or refunded, with the events.
 * A refund the provider accepted and later fails (its notification) gives its amount back to the
 * payment (failAfterAcceptance), so what is refunded is what the customer got.
 */

export const REFUND_SCENARIOS: ReadonlySet<string> = new Set(CONTRACT_REFUND_SCENARIOS);

const FAILURE_BY_OUTCOME: Record<Exclude<RefundOutcome, 'success'>, FailureJson> = {
  hard_decline: { code: 'hard_decline', category: 'hard', message: 'The provider declined the refund.' },
  technical_error: { code: 'provider_error', category: 'technical', message: 'The provider reported a technical error.' },
  provider_unavailable: {
    code: 'provider_unavailable', category: 'technical', message: 'The provider of this payment cannot be reached for refunds.',
  },
};

/** A refund the provider accepted and later could not complete (Stripe: the customer's card or account was closed). */
const FAILED_AFTER_ACCEPTANCE: FailureJson = {
  code: REFUND_FAILED_AFTER_ACCEPTANCE, category: 'hard', message: 'The provider accepted the refund, then could not return the funds to the customer.',
};

export interface RefundInput {
  paymentId: string;
  /** Default: the remaining refundable amount. */
  amount?: bigint;
  reason?: string;
  metadata: Record<string, unknown>;
  testScenario?: string;
}

export interface RefundsDeps {
  store: PaymentsStore;
  pool: Pool;
  connectors: ConnectorRegistry;
  clock: Clock;
  relay: { kick(): void };
  logger: Logger;
  /** Deadline of a refund call; past it the outcome is unknown and reconciliation retries it. */
  providerTimeoutMs: number;
  /** How long a refund's Idempotency-Key stays bound to it (IDEMPOTENCY_TTL_HOURS). */
  idempotencyTtlMs: number;
  /** Where settled refunds are counted by status; nowhere when absent. */
  metrics?: Metrics;
}

/** What reserving gave: a new refund to send, or the one a retry's key is already bound to. */
type Reserved = { refund: RefundRecord; payment: PaymentRecord } | { boundTo: string };

export function refundToProto(r: RefundRecord): Refund {
  return create(RefundSchema, {
    id: r.id,
    paymentId: r.paymentId,
    amount: r.amount,
    currency: r.currency,
    status: r.status,
    reason: r.reason ?? undefined,
    providerRefundId: r.providerRefundId ?? undefined,
    failure: r.failure ?? undefined,
    metadata: r.metadata as JsonObject,
    createdAt: timestampFromDate(r.createdAt),
  });
}

export function createRefunds(deps: RefundsDeps) {
  const { store, clock } = deps;
  const refunds = createRefundStore(deps.pool);
  const settledRefunds = deps.metrics?.counter('svc_refunds_total', 'Refunds by the status their outcome settled them in', {
    status: ['successful', 'failed', 'failed_after_acceptance'],
  });

  /** Step 1. Nothing reaches the provider unless this commits, with the request's key bound to the refund. */
  async function reserve(scope: Scope, input: RefundInput, binding?: Binding): Promise<Reserved> {
    return store.transaction(async (tx) => {
      const payment = await store.getForUpdate(tx, scope, input.paymentId);
      if (!payment) throw serviceError('resource_not_found', `No payment ${input.paymentId}`, { param: 'id' });
      const boundTo = binding && (await store.boundResource(scope, binding, clock.now(), tx));
      if (boundTo) return { boundTo };
      assertAllowed('refund', payment);
      const remaining = payment.capturedAmount - (await refunds.reservedAmount(tx, scope, payment.id));
      if (remaining <= 0n) {
        throw serviceError(
          'invalid_state_transition',
          `Payment ${payment.id} has nothing left to refund: the rest is held by refunds still at the provider.`,
          { param: 'id' },
        );
      }
      // Like a capture above the authorized amount: the payment may be refunded, by less.
      if (input.amount !== undefined && input.amount > remaining) {
        throw serviceError('validation_error', `amount ${formatMoney(input.amount, payment.currency)} exceeds the refundable rest of payment ${payment.id}: ${formatMoney(remaining, payment.currency)}`, {
          param: 'amount',
        });
      }
      const at = clock.now();
      const refund: RefundRecord = {
        id: newId('rf', at),
        paymentId: payment.id,
        merchantId: payment.merchantId,
        projectId: payment.projectId,
        mode: payment.mode,
        amount: input.amount ?? remaining,
        currency: payment.currency,
        status: 'processing',
        reason: input.reason ?? null,
        metadata: input.metadata,
        providerRefundId: null,
        failure: null,
        createdAt: at,
        updatedAt: at,
      };
      await refunds.insert(tx, refund);
      if (binding) {
        await store.run(tx, [store.bindingRow(scope, { ...binding, resourceId: refund.id }, at, deps.idempotencyTtlMs)]);
      }
      await store.addTimeline(tx, payment, [{
        type: 'refund.processing', title: `Refund of ${formatMoney(refund.amount, refund.currency)} sent to ${payment.providerName ?? 'the provider'}`,
        data: { refund_id: refund.id, amount: minorToJson(refund.amount) },
      }], at);
      return { refund, payment };
    });
  }

  /** Step 2. A throw means the outcome is unknown; a missing connector means nothing was sent. */
  async function callProvider(payment: PaymentRecord, refund: RefundRecord, testScenario?: string): Promise<RefundResult> {
    const { providerCode, providerAccountId } = payment;
    const connector = providerCode ? deps.connectors.forProvider(providerCode) : undefined;
    // A completed payment always has its account; without one, as without a connector, nothing is sent.
    if (!connector || !providerCode || !providerAccountId) {
      return { outcome: 'provider_unavailable', providerRefundId: null, providerCode: null, providerMessage: null };
    }
    return withDeadline(deps.providerTimeoutMs, (signal) => connector.refund({
      signal,
      account: { providerCode, id: providerAccountId },
      refundId: refund.id,
      paymentId: payment.id,
      providerPaymentId: payment.providerPaymentId,
      amount: refund.amount,
      currency: refund.currency,
      reason: refund.reason ?? undefined,
      testScenario,
    }));
  }

  /** Step 3. The refund's outcome, the payment's amounts, the timeline and the events commit together. */
  async function settle(scope: Scope, refund: RefundRecord, result: RefundResult): Promise<void> {
    await store.transaction(async (tx) => {
      const payment = (await store.getForUpdate(tx, scope, refund.paymentId))!;
      await settleLocked(tx, payment, refund, result, clock.now());
    });
    deps.relay.kick();
  }

  /** Step 3 in the caller's transaction, which holds the payment's row lock. False when settled meanwhile. */
  async function settleLocked(
    tx: Queryable, payment: PaymentRecord, refund: RefundRecord, result: RefundResult, at: Date,
  ): Promise<boolean> {
    const ok = result.outcome === 'success';
    refund.status = ok ? 'successful' : 'failed';
    refund.providerRefundId = result.providerRefundId;
    refund.failure = ok
      ? null
      : (FAILURE_BY_OUTCOME[result.outcome as Exclude<RefundOutcome, 'success'>] ?? FAILURE_BY_OUTCOME.technical_error);
    refund.updatedAt = at;
    // Settled meanwhile (a reconciliation elsewhere): that outcome stands, nothing is counted twice.
    if (!(await refunds.saveOutcome(tx, refund))) return false;
    const timeline: TimelineEntry[] = [{
      type: `refund.${refund.status}`,
      title: ok ? `Refund of ${formatMoney(refund.amount, refund.currency)} successful` : `Refund failed: ${refund.failure!.code}`,
      data: { refund_id: refund.id, provider_code: result.providerCode, ...(refund.failure && { code: refund.failure.code }) },
    }];
    const events: Change['events'] = [
      { type: ok ? 'refund.successful' : 'refund.failed', object: refundJson(refundToProto(refund)) },
    ];
    const internal = [refundSettledEvent(refund, false, at)];
    if (ok) {
      const effect = refundSettled(payment, refund.amount, at);
      timeline.push(...effect.timeline);
      events.push(...effect.events);
    }
    await commitChange(store, { payment, attempts: [], timeline, events, internal, at }, { tx });
    settledRefunds?.inc({ status: refund.status });
    return true;
  }

  /**
   * A refund that the provider had accepted fails later (its notification says so): the refund is
   * failed and refund.failed emitted, and in the same commit its amount leaves the payment's
   * refunded_amount and the payment's status goes back (refundReversed), so the amount is
   * refundable again and never counted twice. The refund's own move successful → failed, made
   * once under the payment's row lock, is the guard: a replayed or duplicate notification finds it
   * failed and changes nothing. False when it was not successful.
   */
  async function failAfterAcceptance(
    tx: Queryable, payment: PaymentRecord, refund: RefundRecord, result: RefundResult, at: Date,
  ): Promise<boolean> {
    refund.status = 'failed';
    // Same code either way: the ledger reverses the refund by it; the message tells the merchant why.
    refund.failure = result.reversalReason ? { ...FAILED_AFTER_ACCEPTANCE, message: result.reversalReason } : FAILED_AFTER_ACCEPTANCE;
    refund.providerRefundId = result.providerRefundId ?? refund.providerRefundId;
    refund.updatedAt = at;
    if (!(await refunds.failAfterAcceptance(tx, refund))) return false;
    const effect = refundReversed(payment, refund, at);
    const timeline: TimelineEntry[] = [{
      type: 'refund.failed',
      title: `Refund failed at the provider after it was accepted: ${refund.failure.code}`,
      data: {
        refund_id: refund.id, provider_code: result.providerCode, code: refund.failure.code, after_acceptance: true,
        amount: minorToJson(refund.amount),
      },
    }, ...effect.timeline];
    const events: Change['events'] = [{ type: 'refund.failed', object: refundJson(refundToProto(refund)) }, ...effect.events];
    const internal = [refundSettledEvent(refund, true, at)];
    await commitChange(store, { payment, attempts: [], timeline, events, internal, at }, { tx });
    settledRefunds?.inc({ status: 'failed_after_acceptance' });
    return true;
  }

  /**
   * A provider's notification about a refund, in the caller's transaction (which holds the
   * payment's row lock and records the notification): a refund still at the provider is settled as
   * its answer would settle it (a reversal as accepted, then failed); a failure of one the provider
   * had accepted fails it; anything else agrees with the refund (confirmed) or would move it
   * backwards (ignored).
   */
  async function notified(
    tx: Queryable, payment: PaymentRecord, refundId: string, result: RefundResult, at: Date,
  ): Promise<'applied' | 'confirmed' | 'ignored'> {
    const scope = create(ScopeSchema, { merchantId: payment.merchantId, projectId: payment.projectId, mode: payment.mode });
    const refund = await refunds.get(scope, refundId, tx);
    if (!refund) return 'ignored';
    const ok = result.outcome === 'success';
    if (refund.status === 'processing' || refund.status === 'created') {
      // A reversal (its answer lost meanwhile) says the provider had accepted the refund: it is
      // settled as accepted, then failed after acceptance below, so the ledger sees both.
      const answer = result.reversalReason ? { ...result, outcome: 'success' as const } : result;
      if (!(await settleLocked(tx, payment, refund, answer, at))) return 'ignored';
      if (!result.reversalReason) return 'applied';
    }
    if (refund.status === 'successful' && !ok) {
      return (await failAfterAcceptance(tx, payment, refund, result, at)) ? 'applied' : 'ignored';
    }
    return (refund.status === 'successful') === ok ? 'confirmed' : 'ignored';
  }

  /**
   * A retry of a keyed refund answers the refund its key is bound to: as it stands, or
   * idempotency_in_progress while the request that made it may still be at the provider.
   */
  async function replay(scope: Scope, refundId: string): Promise<RefundRecord> {
    const refund = await refunds.get(scope, refundId);
    const decidingSince = clock.now().getTime() - abandonedAfterMs(deps.providerTimeoutMs);
    if (!refund || (refund.status === 'processing' && refund.createdAt.getTime() > decidingSince)) {
      throw stillInProgress('refund');
    }
    return refund;
  }

  async function reserveOnce(scope: Scope, input: RefundInput, binding?: Binding): Promise<Reserved> {
    try {
      return await reserve(scope, input, binding);
    } catch (err) {
      // A request with the same key reserved its refund first (it may be of another payment's lock).
      const boundTo = binding && isBindingConflict(err) && (await store.boundResource(scope, binding, clock.now()));
      if (boundTo) return { boundTo };
      throw err;
    }
  }

  async function createRefund(scope: Scope, input: RefundInput, binding?: Binding): Promise<RefundRecord> {
    const reserved = await reserveOnce(scope, input, binding);
    if ('boundTo' in reserved) return replay(scope, reserved.boundTo);
    const { refund, payment } = reserved;
    const result = await askTwice(payment, refund, input.testScenario);
    if (result) await settle(scope, refund, result);
    return refund;
  }

  /**
   * The provider's answer to a refund, asked a second time at once under the same refund id when
   * the first gave none or one the connector could not read (the provider answers the first
   * refund's outcome, never refunds twice). Undefined when neither told: the provider may have
   * refunded or not, so the refund stays `processing` with its amount reserved until reconciliation
   * asks again, rather than being failed and refunded again.
   */
  async function askTwice(payment: PaymentRecord, refund: RefundRecord, testScenario?: string): Promise<RefundResult | undefined> {
    for (let tries = 1; ; tries++) {
      try {
        return await callProvider(payment, refund, testScenario);
      } catch (err) {
        const message = (err as Error).message;
        if (tries === 2) {
          deps.logger.error({ err: message, refund_id: refund.id }, 'refund outcome unknown, left to reconciliation');
          return undefined;
        }
        deps.logger.warn({ err: message, refund_id: refund.id }, 'refund outcome unknown, asking the provider again');
      }
    }
  }

  /**
   * Sends again every refund left at the provider since before `before` (its call failed or timed
   * out, or its process died), with the same refund id, which connectors treat as the provider-side
   * idempotency reference: a refund the provider already made is answered, not made twice. A
   * definite answer settles it; another failure leaves it for the next round. Returns how many settled.
   */
  async function retryInFlight(before: Date, limit: number): Promise<number> {
    let settled = 0;
    for (const refund of await refunds.inFlightSince(before, limit)) {
      const scope = create(ScopeSchema, { merchantId: refund.merchantId, projectId: refund.projectId, mode: refund.mode });
      const payment = await store.get(scope, refund.paymentId);
      if (!payment) continue;
      let result: RefundResult;
      try {
        result = await callProvider(payment, refund);
      } catch (err) {
        deps.logger.warn({ err: (err as Error).message, refund_id: refund.id }, 'refund outcome still unknown, will retry');
        continue;
      }
      await settle(scope, refund, result);
      settled++;
    }
    return settled;
  }

  return {
    create: createRefund,
    retryInFlight,
    notified,
    get: (scope: Scope, id: string) => refunds.get(scope, id),
    /** undefined when the scope has no such payment (404), so an empty list means "no refunds". */
    async listForPayment(scope: Scope, paymentId: string): Promise<RefundRecord[] | undefined> {
      if (!(await store.get(scope, paymentId))) return undefined;
      return refunds.listForPayment(scope, paymentId);
    },
  };
}

export type Refunds = ReturnType<typeof createRefunds>;
