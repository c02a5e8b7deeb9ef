// Disputes and chargebacks of payments (docs/disputes.md): the dispute's state machine, its tables,
// and the one way every input changes a dispute.
//
// applyProviderView(scope, view, options?) → Promise<Applied> is what every input path calls: the
// sandbox's demo provider, provider notifications and the scheduled sync. `view` is the provider's
// view of one dispute at one moment (ProviderDisputeView: its code and dispute id, our payment id,
// stage, status, reason, amount, currency, fee, whether the funds are withdrawn, evidence deadline,
// the provider's event time and sequence). It locks the payment, upserts the dispute by (scope,
// provider code, provider dispute id), moves it as the state machine allows (never backwards; an
// older view changes nothing), and writes in one transaction: the row, one dispute_history row,
// the money movement (`dpm_…`, unique per dispute and step) with its internal.dispute.funds_moved,
// the payment's timeline entry and the public dispute.created / .updated / .closed. Redelivered or
// concurrent views are idempotent (verdict `confirmed` or `ignored`). A view the payment cannot
// carry throws DisputeViewRefused (code says why), for the caller to record as unmatched.
// options.tx applies in the caller's transaction (it must be allowed to lock the payment row).
export { createApply, DisputeViewRefused, scopeOf, type Applied, type ApplyOptions, type ApplyProviderView } from './apply.js';
export { demoDisputeFee, DEMO_DISPUTE_FEE_MAJOR } from './fees.js';
export type { ChangeSource, DisputeEvidence, DisputeRecord, FundMovement, ProviderDisputeView } from './model.js';
export { CLOSED_STATUSES, decideView, fundsWithdrawnAfter, mayMove, merchantMayAct, type Verdict } from './state-machine.js';
export { createDisputeStore, type DisputeDocument, type DisputeFilter, type DisputeStore } from './store.js';
export { disputeToProto, documentToProto } from './to-proto.js';
export { createDisputes, checkDocument, DOCUMENT_TYPES, MAX_DOCUMENTS, MAX_EVIDENCE_TEXT, type Disputes } from './disputes.js';
export { answeredView, type DisputeActionRegistry, type DisputeProviderActions, type ProviderAnswer } from './provider-actions.js';
export { createSandboxDisputes, disputeActions, winsAtDemo } from './sandbox.js';
export { disputeRoutes } from './service.js';
export { createDisputeParts } from './parts.js';
