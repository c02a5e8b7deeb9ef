import { create, type JsonObject } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Logger } from 'pino';
import { ScopeSchema, type Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import { RefundSchema, type Refund } from '../../../proto/gen/svc/payments/v1/refunds_pb.js';
import { formatMoney, refundJson } from '../../shared/contract/index.js';
import { REFUND_SCENARIOS as CONTRACT_REFUND_SCENARIOS } from '../../shared/contract/enums.js';
import {
  abandonedAfterMs, isBindingConflict, newId, runAsOne, serviceError, stillInProgress, withDeadline, type Binding,
  type Clock, type Pool,
} from '../../shared/index.js';
import type { ConnectorRegistry, RefundOutcome, RefundResult } from '../connectors/index.js';
import {
  assertAllowed, type Change, commitChange, type FailureJson, type PaymentRecord, type PaymentsStore,
  type TimelineEntry,
} from '../payments/index.js';
import { createRefundStore, type RefundRecord } from './store.js';

/**
 * Refunds of completed payments, in three steps so the refundable rest holds under concurrent
 * requests without holding a row lock across a provider call:
 *  1. reserve: lock the payment, check its state and rest, insert the refund as `processing`
 *     (its amount now counts against the rest), commit;
 *  2. call the provider that took the payment, outside any transaction;
 *  3. settle: lock the payment again, record the outcome; on success add the amount to the
 *     payment's refunded_amount and move it to partially_refunded or refunded, with the events.
 */

export const REFUND_SCENARIOS: ReadonlySet<string> = new Set(CONTRACT_REFUND_SCENARIOS);

const FAILURE_BY_OUTCOME: Record<Exclude<RefundOutcome, 'success'>, FailureJson> = {
  hard_decline: { code: 'hard_decline', category: 'hard', message: 'The provider declined the refund.' },
  technical_error: { code: 'provider_error', category: 'technical', message: 'The provider reported a technical error.' },
  provider_unavailable: {
    code: 'provider_unavailable', category: 'technical', message: 'The provider of this payment cannot be reached for refunds.',
  },
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
        await runAsOne(tx, [store.bindStatement(scope, { ...binding, resourceId: refund.id }, at, deps.idempotencyTtlMs)]);
      }
      await store.addTimeline(tx, payment, [{
        type: 'refund.processing', title: `Refund of ${refund.amount} ${refund.currency} sent to ${payment.providerName ?? 'the provider'}`,
        data: { refund_id: refund.id, amount: Number(refund.amount) },
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
      const at = clock.now();
      const ok = result.outcome === 'success';
      refund.status = ok ? 'successful' : 'failed';
      refund.providerRefundId = result.providerRefundId;
      refund.failure = ok
        ? null
        : (FAILURE_BY_OUTCOME[result.outcome as Exclude<RefundOutcome, 'success'>] ?? FAILURE_BY_OUTCOME.technical_error);
      refund.updatedAt = at;
      // Settled meanwhile (a reconciliation elsewhere): that outcome stands, nothing is counted twice.
      if (!(await refunds.saveOutcome(tx, refund))) return;
      const timeline: TimelineEntry[] = [{
        type: `refund.${refund.status}`,
        title: ok ? `Refund of ${refund.amount} ${refund.currency} successful` : `Refund failed: ${refund.failure!.code}`,
        data: { refund_id: refund.id, provider_code: result.providerCode, ...(refund.failure && { code: refund.failure.code }) },
      }];
      const events: Change['events'] = [
        { type: ok ? 'refund.successful' : 'refund.failed', object: refundJson(refundToProto(refund)) },
      ];
      if (ok) {
        payment.refundedAmount += refund.amount;
        payment.status = payment.refundedAmount >= payment.capturedAmount ? 'refunded' : 'partially_refunded';
        payment.updatedAt = at;
        timeline.push({
          type: `payment.${payment.status}`,
          title: payment.status === 'refunded' ? 'Payment fully refunded' : 'Payment partially refunded',
          data: { refunded_amount: Number(payment.refundedAmount) },
        });
        events.push('payment.refunded');
      }
      await commitChange(store, { payment, attempts: [], timeline, events, at }, { tx });
    });
    deps.relay.kick();
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
    let result: RefundResult;
    try {
      result = await callProvider(payment, refund, input.testScenario);
    } catch (err) {
      // The provider may have refunded or not: the refund stays `processing` and keeps its amount
      // reserved until reconciled, rather than being failed and refunded again.
      deps.logger.error({ err: (err as Error).message, refund_id: refund.id }, 'refund outcome unknown');
      return refund;
    }
    await settle(scope, refund, result);
    return refund;
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
    get: (scope: Scope, id: string) => refunds.get(scope, id),
    /** undefined when the scope has no such payment (404), so an empty list means "no refunds". */
    async listForPayment(scope: Scope, paymentId: string): Promise<RefundRecord[] | undefined> {
      if (!(await store.get(scope, paymentId))) return undefined;
      return refunds.listForPayment(scope, paymentId);
    },
  };
}

export type Refunds = ReturnType<typeof createRefunds>;
