// Payments: the payment core, and its one way in. Every change of a payment's state is decided
// here and written here; other folders (jobs, provider notifications, refunds) import this index
// only, and nothing here imports them back. The layers, each importing only those below it:
//  - attempt-outcomes.ts: what a provider's answer means (pure): the attempt's outcome, status and
//    failure, what the payment does next, the failure a failed payment reports;
//  - customer-action-required.ts: whether a requires_action is actionable and the action it opens (pure);
//  - transitions.ts: the pure transitions an answer causes (open, approve, fail, await customer,
//    await provider, fail over), each returning one Change, and what a refund's outcome does to its
//    payment's amounts; customer-actions.ts: the customer's approval, decline or expiry (or the
//    provider's report of it) as a transition, and the sandbox page's view and completion;
//    lifecycle.ts: capture, cancel and authorization expiry; state-machine.ts: which operation each
//    status allows;
//  - provider-call.ts: one provider call under its deadline and the status query after a time-out (I/O);
//    attempt-credential.ts: the token (or vault route) each attempt is sent, found again for later calls;
//    merchant-initiated.ts: the network transaction id a merchant-initiated payment is sent with,
//    and the one a customer-present payment keeps on its stored method;
//  - commit.ts: the one way a Change is written (rows, timeline, outbox events, in one commit);
//  - orchestrator.ts: the attempt loop of POST /v1/payments (plan, open, call, settle, commit);
//  - store.ts, customer-action-store.ts, model.ts, timeline.ts, to-proto.ts: the payments tables and
//    their shapes; timeline-descriptions.ts: the one sentence each timeline entry type is described by;
//  - service.ts: the PaymentsService RPC handlers.
export { nextStep, paymentFailure, recordAnswer, type ProviderAnswer } from './attempt-outcomes.js';
export { callProvider, providerCall, queryStatus, type ProviderCall } from './provider-call.js';
export { attemptCredential, type CredentialSources } from './attempt-credential.js';
export { keptNetworkTransactionId } from './merchant-initiated.js';
export { actionable, openCustomerAction, SANDBOX_PAGE_PATH, type CustomerActionSettings } from './customer-action-required.js';
export {
  completeCustomerAction, createCustomerActions, CUSTOMER_OUTCOMES, type CustomerActions, type CustomerOutcome,
  providerCompletesCustomerAction,
} from './customer-actions.js';
export { AttemptSettledElsewhere, commitChange, type CommitOptions } from './commit.js';
export { cancel, capture, createLifecycle, expireAuthorization, type Lifecycle } from './lifecycle.js';
export type {
  AttemptRecord, CustomerActionRecord, DisputeSummaryRecord, FailureJson, NextActionJson, PaymentRecord, TimelineEntry,
} from './model.js';
export { paymentOutcomes, type PaymentOutcomes } from './metrics.js';
export { createOrchestrator, type Orchestrator, type OrchestratorDeps } from './orchestrator.js';
export { routes } from './service.js';
export { assertAllowed, awaitingCustomer, inFlight, statusAfterRefunds } from './state-machine.js';
export { createStore, type PaymentFilter, type PaymentsStore } from './store.js';
export { paymentToProto } from './to-proto.js';
export { disputeEntryTitle } from './timeline-descriptions.js';
export {
  approve, awaitCustomer, awaitProvider, fail, failOver, open, refundReversed, refundSettled, settleAttempt, settleLate,
  type Change, type RefundEffect, type Settling,
} from './transitions.js';
