import type { Client } from '@connectrpc/connect';
import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import { CreatePaymentRequestSchema, type CreatePaymentRequest } from '../../../proto/gen/svc/payments/v1/payments_pb.js';
import type { RoutingService } from '../../../proto/gen/svc/routing/v1/routing_pb.js';
import type { Clock } from '../../platform/clock.js';
import { bindingOf, isBindingConflict, stillInProgress, type Binding } from '../../platform/idempotency-bindings.js';
import { newId } from '../../platform/ids.js';
import type { OutboxRelay } from '../../platform/outbox.js';
import { callProvider, forwardingOf, providerCall, type ProviderCall } from './provider-call.js';
import { keptNetworkTransactionId, merchantInitiatedOf } from './merchant-initiated.js';
import { withCard } from './attempt-outcomes.js';
import { AttemptSettledElsewhere, commitChange } from './commit.js';
import type { PaymentOutcomes } from './metrics.js';
import type { CardFacts, ConnectorRegistry } from '../../connectors/index.js';
import { actionable, type CustomerActionSettings } from './customer-action-required.js';
import type { PaymentRecord } from './model.js';
import { newPayment, planRequest } from './new-payment.js';
import {
  oneOffCredential, resolveStoredMethod, storedCardFacts, type PaymentCredentials, type PaymentMethodStore,
} from '../payment-methods/index.js';
import { methodCredentials, type CredentialSources } from './attempt-credential.js';
import type { PaymentFilter, PaymentsStore } from './store.js';
import { timelineEventToProto } from './timeline.js';
import { open, settleAttempt } from './transitions.js';

export interface OrchestratorDeps extends CredentialSources {
  store: PaymentsStore;
  routing: Client<typeof RoutingService>;
  connectors: ConnectorRegistry;
  clock: Clock;
  relay: OutboxRelay;
  /** Deadline of each provider call (authorize, and the status query after a time-out). */
  providerTimeoutMs: number;
  paymentMethods: PaymentMethodStore;
  /**
   * How long the opening commit's payment.created waits in the outbox for the outcome this request
   * asks a provider for (PAYMENT_CREATED_HOLD_MS), so the relay sends the two as one message; 0: not held.
   */
  createdHoldMs: number;
  /** How a customer action is opened when a provider answers requires_action (asynchronous rails). */
  customerActions: CustomerActionSettings;
  /** How long a payment's Idempotency-Key stays bound to it (the gateway's IDEMPOTENCY_TTL_HOURS). */
  idempotencyTtlMs: number;
  /** Where each decided payment is counted (payments/metrics.ts); nowhere when absent. */
  outcomes?: PaymentOutcomes;
}

/** Runs a payment's orchestration synchronously: risk and route, then attempts until one completes. */
export function createOrchestrator(deps: OrchestratorDeps) {
  const { store, clock } = deps;

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

  /**
   * The relay is kicked once, after the request's last commit, so a payment's events go out in
   * one batch rather than one per commit; events of a commit that a crash leaves unkicked go at the
   * relay's next poll. A payment.created still held (no later event of its payment committed: the
   * request failed, or its provider answered nothing yet) goes when its hold ends.
   */
  async function orchestrate(scope: Scope, req: CreatePaymentRequest, binding?: Binding): Promise<PaymentRecord> {
    try {
      return await run(scope, req, binding);
    } finally {
      deps.relay.kick();
      if (deps.createdHoldMs > 0) deps.relay.wakeAfter(deps.createdHoldMs);
    }
  }

  /**
   * Plan, open, then per candidate: call, settle, commit, until the payment is decided (or waits).
   * The payment, its first attempt and its key are durable before any provider is called; each
   * later commit applies only while the attempt its provider answered is still in flight.
   */
  async function run(scope: Scope, req: CreatePaymentRequest, binding?: Binding): Promise<PaymentRecord> {
    // A stored method of another scope or type, or a live token of unknown issuer, is refused before
    // anything is planned or written.
    const { credentials, merchantInitiated, card } = await credentialsFor(scope, req);
    const startedMs = performance.now();
    const elapsed = () => Math.round(performance.now() - startedMs);
    const createdAt = clock.now();
    const paymentId = newId('pay', createdAt);
    const binds = binding && store.bindingRow(scope, { ...binding, resourceId: paymentId }, createdAt, deps.idempotencyTtlMs);
    const plan = await deps.routing.planPayment(planRequest(scope, req, paymentId, credentials, card));
    const candidates = plan.routing?.candidates ?? [];
    const payment = newPayment(scope, req, paymentId, plan, createdAt, merchantInitiated);
    const opened = open(payment, plan, { at: clock.now(), processingTimeMs: elapsed() });
    // Held only while an attempt follows in this request; a payment failed at once has its outcome here.
    await commitChange(store, opened, { binds, holdMs: payment.status === 'created' ? deps.createdHoldMs : 0 });

    for (let i = 0; payment.status === 'created'; i++) {
      const attempt = payment.attempts[i];
      const token = credentials.tokenFor(candidates[i]);
      const call = providerCall(payment, attempt, {
        latencyMs: candidates[i].latencyMs, paymentMethodToken: token, forwarding: forwardingOf(candidates[i]),
      });
      const connector = deps.connectors.forProvider(candidates[i].providerCode);
      const answer = withCard(actionable(payment.mode, await callProvider(connector, call, deps.providerTimeoutMs)), card);
      const change = settleAttempt(payment, attempt, answer, {
        at: clock.now(), processingTimeMs: elapsed(), next: candidates[i + 1], customerActions: deps.customerActions,
      });
      const also = keptNetworkTransactionId(deps.paymentMethods, scope, payment, answer.result);
      await commitChange(store, change, { ifAttemptInFlight: attempt, also });
    }
    deps.outcomes?.decided(payment);
    return payment;
  }

  /**
   * The payment's credentials: a stored method's (checked to be the scope's), or the request's
   * one-off token; for a merchant-initiated payment, the stored method's network transaction id;
   * and what a stored card says about itself (a one-off token says nothing).
   */
  async function credentialsFor(scope: Scope, req: CreatePaymentRequest): Promise<{
    credentials: PaymentCredentials; merchantInitiated?: ProviderCall['merchantInitiated']; card?: CardFacts;
  }> {
    const stored = await resolveStoredMethod(deps.paymentMethods, scope, req.paymentMethod);
    const merchantInitiated = merchantInitiatedOf(req, stored);
    if (!stored) return { credentials: oneOffCredential(req.paymentMethod?.token, req.paymentMethod?.providerCode, scope.mode, deps.issuerOf) };
    return {
      credentials: (await methodCredentials(deps, scope, stored.id)).credentials, merchantInitiated, card: storedCardFacts(stored),
    };
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
