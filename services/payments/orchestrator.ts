import type { Client } from '@connectrpc/connect';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import { CreatePaymentRequestSchema, type CreatePaymentRequest } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import type { RouteCandidate, RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import {
  bindingOf, isBindingConflict, newId, stillInProgress, type Binding, type Clock, type OutboxRelay, type Queryable,
  type Statement,
} from '../shared/index.js';
import { callProvider, newAttempt, nextStep, paymentFailure, providerCall, recordAnswer } from './attempts.js';
import type { ConnectorRegistry } from './connectors/index.js';
import { actionable, type CustomerActions } from './customer-actions.js';
import { applyApproval, changeStatements } from './lifecycle.js';
import type { AttemptRecord, FailureJson, PaymentRecord, TimelineEntry } from './model.js';
import type { PaymentMethodStore } from './payment-method-store.js';
import { resolveStoredMethod } from './payment-methods.js';
import { AttemptSettledElsewhere, type PaymentFilter, type PaymentsStore } from './store.js';
import { timelineEventToProto } from './timeline.js';

export interface OrchestratorDeps {
  store: PaymentsStore;
  routing: Client<typeof RoutingService>;
  connectors: ConnectorRegistry;
  clock: Clock;
  relay: OutboxRelay;
  /** Deadline of each provider call (authorize, and the status query after a time-out). */
  providerTimeoutMs: number;
  paymentMethods: PaymentMethodStore;
  /** Opens the customer's action when a provider answers requires_action (asynchronous rails). */
  customerActions: CustomerActions;
  /** How long a payment's Idempotency-Key stays bound to it (the gateway's IDEMPOTENCY_TTL_HOURS). */
  idempotencyTtlMs: number;
}

interface CommitOptions {
  /** After a provider call: the attempt it answered, which must still be in flight. */
  answered?: AttemptRecord;
  also?: (tx: Queryable) => Promise<void>;
  /** The first commit of a keyed payment binds its key in the same statement. */
  binds?: Statement;
}

/** Runs a payment's orchestration synchronously: risk and route, then attempts until one completes. */
export function createOrchestrator(deps: OrchestratorDeps) {
  const { store, clock } = deps;

  /**
   * One commit: the payment, its attempts, its timeline and its events change together. After a
   * provider call, `answered` names the attempt it answered: the commit applies only while that
   * attempt is still in flight (reconciliation may have settled it if this request stalled).
   */
  async function commit(
    payment: PaymentRecord, attempts: AttemptRecord[], timeline: TimelineEntry[], events: string[], at: Date,
    { answered, also, binds }: CommitOptions = {},
  ): Promise<void> {
    const inFlight = answered && { paymentId: payment.id, attemptId: answered.id };
    const statements = changeStatements(store, payment, { attempts, timeline, events }, at);
    await store.write(binds ? [binds, ...statements] : statements, also, inFlight);
    deps.relay.kick();
  }

  function finish(payment: PaymentRecord, status: string, failure: FailureJson | null, startedMs: number): Date {
    const at = clock.now();
    payment.status = status;
    payment.failure = failure;
    payment.updatedAt = at;
    payment.processedAt = at;
    payment.processingTimeMs = Math.round(performance.now() - startedMs);
    return at;
  }

  /**
   * A keyed payment runs once: a retry finds the key bound to its payment and answers that payment
   * as it stands, or idempotency_in_progress while its outcome is still being decided (status
   * `created`: its request, or reconciliation after that request died, is still at a provider).
   */
  async function create(scope: Scope, req: CreatePaymentRequest): Promise<PaymentRecord> {
    const binding = bindingOf(CreatePaymentRequestSchema, req);
    if (binding) {
      const bound = await store.boundResource(scope, binding, clock.now());
      if (bound) return replay(scope, bound);
    }
    try {
      return await orchestrate(scope, req, binding);
    } catch (err) {
      // Reconciliation recorded the outcome first: answer the payment as it stands.
      if (err instanceof AttemptSettledElsewhere) return (await store.get(scope, err.paymentId))!;
      // A request with the same key committed its payment first: this one wrote nothing.
      if (binding && isBindingConflict(err)) {
        const bound = await store.boundResource(scope, binding, clock.now());
        if (bound) return replay(scope, bound);
      }
      throw err;
    }
  }

  async function replay(scope: Scope, paymentId: string): Promise<PaymentRecord> {
    const payment = await store.get(scope, paymentId);
    if (!payment || payment.status === 'created') throw stillInProgress('payment');
    return payment;
  }

  async function orchestrate(scope: Scope, req: CreatePaymentRequest, binding?: Binding): Promise<PaymentRecord> {
    // A stored method of another scope or type is refused before anything is planned or written.
    const stored = await resolveStoredMethod(deps.paymentMethods, scope, req.paymentMethod);
    const startedMs = performance.now();
    const createdAt = clock.now();
    const paymentId = newId('pay', createdAt);
    const binds = binding && store.bindStatement(scope, { ...binding, resourceId: paymentId }, createdAt, deps.idempotencyTtlMs);
    // Only the fields the merchant sent: proto messages also carry $typeName and unset fields.
    const customer = req.customer
      ? Object.fromEntries(Object.entries(req.customer).filter(([k, v]) => !k.startsWith('$') && v !== undefined))
      : null;

    const plan = await deps.routing.planPayment({
      scope,
      // A stored method's token is valid at the provider that issued it only.
      providerCode: stored?.providerCode ?? undefined,
      input: {
        paymentId,
        amount: req.amount,
        currency: req.currency,
        country: req.country,
        paymentMethodType: req.paymentMethod!.type,
        customerKey: req.customer?.id ?? req.customer?.externalId ?? req.customer?.email,
        customerCountry: req.customer?.country,
        deviceIp: req.device?.ip,
        deviceFingerprint: req.device?.fingerprint,
      },
    });

    const payment: PaymentRecord = {
      id: paymentId,
      merchantId: scope.merchantId,
      projectId: scope.projectId,
      mode: scope.mode,
      status: 'created',
      amount: req.amount,
      currency: req.currency,
      capturedAmount: 0n,
      refundedAmount: 0n,
      captureMethod: req.captureMethod || 'automatic',
      paymentMethodType: req.paymentMethod!.type,
      paymentMethodId: req.paymentMethod!.id ?? null,
      country: req.country ?? null,
      description: req.description ?? null,
      reference: req.reference ?? null,
      customer,
      metadata: req.metadata ?? {},
      returnUrl: req.returnUrl ?? null,
      testScenario: req.testScenario ?? null,
      providerId: null,
      providerCode: null,
      providerName: null,
      providerAccountId: null,
      providerPaymentId: null,
      attemptCount: 0,
      routingDecisionId: plan.routing?.decisionId ?? null,
      routingRule: plan.routing?.rule ?? null,
      riskDecisionId: plan.risk?.decisionId ?? null,
      riskScore: plan.risk?.score ?? null,
      failure: null,
      nextAction: null,
      feeAmount: 0n,
      processingTimeMs: null,
      createdAt,
      updatedAt: createdAt,
      processedAt: null,
      attempts: [],
    };
    const timeline: TimelineEntry[] = [
      { type: 'payment.created', title: 'Payment created', data: { amount: Number(payment.amount), currency: payment.currency } },
      {
        type: 'risk.evaluated',
        title: `Risk score ${plan.risk?.score ?? 0}`,
        data: { decision_id: plan.risk?.decisionId, outcome: plan.risk?.outcome, reasons: plan.risk?.reasons ?? [] },
      },
    ];

    if (plan.risk?.outcome === 'block') {
      timeline.push({ type: 'payment.failed', title: 'Blocked by risk rules' });
      const at = finish(payment, 'failed', {
        code: 'risk_blocked', category: 'policy', message: 'The payment was blocked by risk rules.',
      }, startedMs);
      await commit(payment, [], timeline, ['payment.created', 'payment.failed'], at, { binds });
      return payment;
    }

    const candidates = plan.routing?.candidates ?? [];
    timeline.push({
      type: 'routing.decided',
      title: `Route planned by rule "${payment.routingRule}"`,
      data: { decision_id: payment.routingDecisionId, candidates: candidates.map((c) => c.providerCode) },
    });
    if (candidates.length === 0) {
      timeline.push({ type: 'payment.failed', title: 'No eligible provider' });
      const at = finish(payment, 'failed', {
        code: 'no_eligible_provider',
        category: 'policy',
        message: 'No provider connected to this account can process this payment.',
      }, startedMs);
      await commit(payment, [], timeline, ['payment.created', 'payment.failed'], at, { binds });
      return payment;
    }

    // The payment, its first attempt and its key are durable before any provider is called.
    let attempt = startAttempt(payment, candidates[0], timeline, createdAt);
    await commit(payment, [attempt], timeline, ['payment.created'], createdAt, { binds });

    for (let i = 0; ; i++) {
      const answer = actionable(payment.mode, await callProvider(deps.connectors.forProvider(candidates[i].providerCode),
        providerCall(payment, attempt, {
          latencyMs: candidates[i].latencyMs,
          paymentMethodToken: stored ? stored.providerToken : req.paymentMethod?.token,
        }), deps.providerTimeoutMs));
      const steps: TimelineEntry[] = [];
      recordAnswer(attempt, answer, clock.now(), steps);
      const next = candidates[i + 1];
      const step = nextStep(answer.result.outcome, next !== undefined);
      if (step === 'succeed') {
        payment.providerPaymentId = attempt.providerPaymentId;
        payment.feeAmount = attempt.feeAmount;
        // Manual capture stops at authorized (funds held); automatic completes the payment.
        const approved = applyApproval(payment, attempt, steps);
        const at = finish(payment, approved.status, null, startedMs);
        await commit(payment, [attempt], steps, [approved.event], at, { answered: attempt });
        return payment;
      }
      if (step === 'await_provider') {
        // The provider may yet charge the customer, so no other provider is tried: the payment
        // stays in flight (processing) until the provider's outcome is known.
        payment.providerPaymentId = attempt.providerPaymentId;
        const at = finish(payment, 'processing', null, startedMs);
        payment.processedAt = null;
        // On an asynchronous rail the provider waits for the customer, who acts on next_action's page.
        const required = answer.result.outcome === 'requires_action' ? answer.result.customerAction : undefined;
        const action = required && deps.customerActions.open(payment, attempt, required, at, steps);
        const title = action ? 'Awaiting the customer' : "Awaiting the provider's outcome";
        steps.push({ type: 'payment.processing', title });
        await commit(payment, [attempt], steps, ['payment.processing'], at, {
          answered: attempt, also: action && ((tx) => store.insertCustomerAction(tx, action)),
        });
        return payment;
      }
      if (step === 'fail') {
        const failure = paymentFailure(payment.attempts);
        steps.push({ type: 'payment.failed', title: 'Payment failed', data: { code: failure?.code, category: failure?.category } });
        const at = finish(payment, 'failed', failure, startedMs);
        await commit(payment, [attempt], steps, ['payment.failed'], at, { answered: attempt });
        return payment;
      }
      const previous = attempt;
      const at = clock.now();
      steps.push({
        type: 'failover',
        title: `Failing over from ${previous.providerName} to ${next!.providerName}`,
        attemptId: previous.id,
        data: { reason: previous.outcome, from_provider: previous.providerCode, to_provider: next!.providerCode },
      });
      attempt = startAttempt(payment, next!, steps, at);
      await commit(payment, [previous, attempt], steps, [], at, { answered: previous });
    }
  }

  function startAttempt(payment: PaymentRecord, c: RouteCandidate, timeline: TimelineEntry[], at: Date): AttemptRecord {
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
      data: { provider_account_id: c.providerAccountId },
    });
    return attempt;
  }

  return {
    create,
    get: (scope: Scope, id: string) => store.get(scope, id),
    list: (scope: Scope, filter: PaymentFilter) => store.list(scope, filter),
    /** The timeline as proto messages; undefined when the scope has no such payment. */
    async timeline(scope: Scope, id: string) {
      return (await store.timeline(scope, id))?.map(timelineEventToProto);
    },
  };
}

export type Orchestrator = ReturnType<typeof createOrchestrator>;
