import type { DisputeEvidence, DisputeRecord, ProviderDisputeView } from './model.js';
import type { DisputeDocument } from './store.js';

/**
 * What a provider's API does with a merchant's action on one of its disputes. Each answers the
 * provider's view after the action (the fields that changed; the rest is the dispute's), which is
 * applied like any other view, and throws when the provider refused or could not be reached (then
 * nothing changed here). A provider without an entry cannot do the action through its API, and the
 * merchant is answered dispute_action_unsupported.
 */
export interface DisputeProviderActions {
  accept(dispute: DisputeRecord): Promise<ProviderAnswer>;
  submitEvidence(dispute: DisputeRecord, evidence: DisputeEvidence, documents: Array<DisputeDocument & { content: Buffer }>): Promise<ProviderAnswer>;
}

/** The provider's view after an action: what changed. */
export type ProviderAnswer = Partial<Pick<ProviderDisputeView, 'status' | 'stage' | 'fundsWithdrawn' | 'evidenceDueBy' | 'sequence'>>;

/** The provider's view of the dispute as it stands, with the answer's changes, made at `at`. */
export function answeredView(d: DisputeRecord, at: Date, answer: ProviderAnswer): ProviderDisputeView {
  return {
    providerCode: d.providerCode, providerDisputeId: d.providerDisputeId, paymentId: d.paymentId, stage: d.stage, status: d.status,
    reason: d.reason, providerReason: d.providerReason, amount: d.amount, currency: d.currency, feeAmount: d.feeAmount,
    fundsWithdrawn: d.fundsWithdrawn, evidenceDueBy: d.evidenceDueBy, occurredAt: at, ...answer,
  };
}

/** Actions by provider code: the built-in demo providers' (sandbox.ts), and each connector's that has them. */
export type DisputeActionRegistry = (providerCode: string) => DisputeProviderActions | undefined;
