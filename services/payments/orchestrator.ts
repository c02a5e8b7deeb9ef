import type { Client } from '@connectrpc/connect';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import type { CreatePaymentRequest } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import type { RouteCandidate, RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { paymentJson } from '../shared/contract/index.js';
import { enqueueEvent, newId, type Clock, type OutboxRelay, type Queryable } from '../shared/index.js';
import type { AuthorizeResult, ConnectorRegistry } from './connectors/index.js';
import type { AttemptRecord, FailureJson, PaymentRecord, TimelineEntry } from './model.js';
import type { PaymentFilter, PaymentsStore } from './store.js';
import { paymentToProto } from './to-proto.js';

export interface OrchestratorDeps {
  store: PaymentsStore;
  routing: Client<typeof RoutingService>;
  connectors: ConnectorRegistry;
  clock: Clock;
  relay: OutboxRelay;
}

const FAILOVER_OUTCOMES = new Set(['soft_decline', 'technical_error', 'timeout', 'provider_unavailable']);

const FAILURE_BY_OUTCOME: Record<string, FailureJson> = {
  soft_decline: { code: 'soft_decline', category: 'soft', message: 'The provider declined the payment; it may succeed elsewhere.' },
  hard_decline: { code: 'hard_decline', category: 'hard', message: 'The provider declined the payment.' },
  technical_error: { code: 'provider_error', category: 'technical', message: 'The provider reported a technical error.' },
  timeout: { code: 'provider_timeout', category: 'technical', message: 'The provider did not answer in time.' },
  provider_unavailable: { code: 'provider_unavailable', category: 'technical', message: 'The provider was unavailable.' },
  unknown: { code: 'provider_unknown_outcome', category: 'technical', message: 'The provider outcome is unknown.' },
};

/** Runs a payment's orchestration synchronously: risk and route, then attempts until one completes. */
export function createOrchestrator(deps: OrchestratorDeps) {
  const { store, clock } = deps;

  async function emit(db: Queryable, payment: PaymentRecord, type: string, at: Date): Promise<void> {
    await enqueueEvent(db, {
      id: newId('evt', at),
      type,
      mode: payment.mode,
      merchant_id: payment.merchantId,
      project_id: payment.projectId,
      created_at: at.toISOString(),
      data: { object: paymentJson(paymentToProto(payment)) },
    });
  }

  /** One commit: the payment, its attempts, its timeline and its events change together. */
  async function commit(
    payment: PaymentRecord, attempts: AttemptRecord[], timeline: TimelineEntry[], events: string[], at: Date,
  ): Promise<void> {
    await store.transaction(async (tx) => {
      await store.save(tx, payment, attempts);
      await store.addTimeline(tx, payment, timeline, at);
      for (const type of events) await emit(tx, payment, type, at);
    });
    deps.relay.kick();
  }

  function newAttempt(payment: PaymentRecord, c: RouteCandidate, at: Date): AttemptRecord {
    return {
      id: newId('att', at),
      attemptNumber: payment.attempts.length + 1,
      status: 'processing',
      outcome: null,
      providerId: c.providerId,
      providerCode: c.providerCode,
      providerName: c.providerName,
      providerAccountId: c.providerAccountId,
      providerPaymentId: null,
      providerResponseCode: null,
      providerMessage: null,
      failure: null,
      feeAmount: 0n,
      latencyMs: null,
      createdAt: at,
      updatedAt: at,
    };
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

  async function create(scope: Scope, req: CreatePaymentRequest): Promise<PaymentRecord> {
    const startedMs = performance.now();
    const createdAt = clock.now();
    const paymentId = newId('pay', createdAt);
    // Only the fields the merchant sent: proto messages also carry $typeName and unset fields.
    const customer = req.customer
      ? Object.fromEntries(Object.entries(req.customer).filter(([k, v]) => !k.startsWith('$') && v !== undefined))
      : null;

    const plan = await deps.routing.planPayment({
      scope,
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
      feeAmount: 0n,
      processingTimeMs: null,
      createdAt,
      updatedAt: createdAt,
      processedAt: null,
      attempts: [],
    };
    const timeline: TimelineEntry[] = [
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
      await commit(payment, [], timeline, ['payment.created', 'payment.failed'], at);
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
      await commit(payment, [], timeline, ['payment.created', 'payment.failed'], at);
      return payment;
    }

    // The payment and its first attempt are durable before any provider is called.
    let attempt = startAttempt(payment, candidates[0], timeline, createdAt);
    await commit(payment, [attempt], timeline, ['payment.created'], createdAt);

    for (let i = 0; ; i++) {
      const callStarted = performance.now();
      const result = await deps.connectors.forProvider(candidates[i].providerCode)!.authorize({
        paymentId,
        attemptId: attempt.id,
        attemptNumber: attempt.attemptNumber,
        amount: payment.amount,
        currency: payment.currency,
        methodType: payment.paymentMethodType,
        captureMethod: payment.captureMethod,
        candidate: candidates[i],
        testScenario: payment.testScenario ?? undefined,
      });
      const steps: TimelineEntry[] = [];
      recordResult(attempt, result, Math.round(performance.now() - callStarted), steps);
      if (result.outcome === 'success') {
        payment.providerPaymentId = result.providerPaymentId;
        payment.feeAmount = result.fee;
        payment.capturedAmount = payment.amount;
        steps.push({ type: 'payment.successful', title: 'Payment successful' });
        const at = finish(payment, 'successful', null, startedMs);
        await commit(payment, [attempt], steps, ['payment.successful'], at);
        return payment;
      }
      const next = candidates[i + 1];
      if (!FAILOVER_OUTCOMES.has(result.outcome) || !next) {
        steps.push({ type: 'payment.failed', title: 'Payment failed' });
        const at = finish(payment, 'failed', attempt.failure, startedMs);
        await commit(payment, [attempt], steps, ['payment.failed'], at);
        return payment;
      }
      const previous = attempt;
      const at = clock.now();
      steps.push({ type: 'failover', title: `Failing over to ${next.providerName}`, attemptId: previous.id });
      attempt = startAttempt(payment, next, steps, at);
      await commit(payment, [previous, attempt], steps, [], at);
    }
  }

  function startAttempt(payment: PaymentRecord, c: RouteCandidate, timeline: TimelineEntry[], at: Date): AttemptRecord {
    const attempt = newAttempt(payment, c, at);
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

  function recordResult(attempt: AttemptRecord, result: AuthorizeResult, latencyMs: number, timeline: TimelineEntry[]) {
    attempt.outcome = result.outcome;
    attempt.status = result.outcome === 'success' ? 'succeeded' : result.outcome === 'unknown' ? 'unknown' : 'failed';
    attempt.providerPaymentId = result.providerPaymentId;
    attempt.providerResponseCode = result.providerCode;
    attempt.providerMessage = result.providerMessage;
    attempt.failure = result.outcome === 'success' ? null : (FAILURE_BY_OUTCOME[result.outcome] ?? FAILURE_BY_OUTCOME.unknown);
    attempt.feeAmount = result.fee;
    attempt.latencyMs = latencyMs;
    attempt.updatedAt = clock.now();
    timeline.push({
      type: `attempt.${attempt.status}`,
      title: `Attempt ${attempt.attemptNumber}: ${result.outcome}`,
      attemptId: attempt.id,
      data: { provider_code: result.providerCode, latency_ms: latencyMs },
    });
  }

  return {
    create,
    get: (scope: Scope, id: string) => store.get(scope, id),
    list: (scope: Scope, filter: PaymentFilter) => store.list(scope, filter),
  };
}

export type Orchestrator = ReturnType<typeof createOrchestrator>;
