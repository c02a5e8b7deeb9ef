// Payments: a payment from its request to its decided state, and what the merchant does with it
// after. This folder is where a payment changes state:
//  - orchestrator.ts: the attempt loop of POST /v1/payments (plan, open, call, settle, commit);
//  - transitions.ts: the pure transitions an answer causes (open, approve, fail, await customer,
//    await provider, fail over), each returning one Change, and what a refund's outcome does to its
//    payment's amounts (settled, or reversed when the provider fails it after accepting it); lifecycle.ts: capture, cancel and
//    authorization expiry; state-machine.ts: which operation each status allows;
//  - commit.ts: the one way a Change is written (rows, timeline, outbox events, in one commit);
//  - attempts.ts: one provider call under its deadline and the status query after a time-out;
//  - store.ts, model.ts, timeline.ts, to-proto.ts: the payments tables and their shapes;
//    timeline-descriptions.ts: the one sentence each timeline entry type is described by;
//  - service.ts: the PaymentsService RPC handlers.
export { recordAnswer, callProvider, providerCall, queryStatus, type ProviderAnswer, type ProviderCall } from './attempts.js';
export { AttemptSettledElsewhere, commitChange, type CommitOptions } from './commit.js';
export { cancel, capture, createLifecycle, expireAuthorization, type Lifecycle } from './lifecycle.js';
export type {
  AttemptRecord, CustomerActionRecord, FailureJson, NextActionJson, PaymentRecord, TimelineEntry,
} from './model.js';
export { paymentOutcomes, type PaymentOutcomes } from './metrics.js';
export { createOrchestrator, type Orchestrator, type OrchestratorDeps } from './orchestrator.js';
export { routes } from './service.js';
export { assertAllowed, awaitingCustomer, inFlight, statusAfterRefunds } from './state-machine.js';
export { createStore, type PaymentFilter, type PaymentsStore } from './store.js';
export { paymentToProto } from './to-proto.js';
export {
  approve, awaitCustomer, awaitProvider, fail, failOver, open, refundReversed, refundSettled, settleAttempt, settleLate,
  type Change, type RefundEffect, type Settling,
} from './transitions.js';
