import type { DisputeEvidenceText, DisputeReason, DisputeStage, DisputeStatus } from '../../contract/enums.js';
import type { Minor } from '../../contract/money.js';

/** A dispute as stored (migration 0020). Amounts in minor units of `currency`, the payment's. */
export interface DisputeRecord {
  id: string;
  paymentId: string;
  attemptId: string | null;
  merchantId: string;
  projectId: string;
  mode: string;
  providerId: string | null;
  providerCode: string;
  providerName: string | null;
  providerAccountId: string | null;
  providerDisputeId: string;
  amount: Minor;
  currency: string;
  feeAmount: Minor;
  reason: DisputeReason;
  providerReason: string | null;
  stage: DisputeStage;
  status: DisputeStatus;
  evidenceDueBy: Date | null;
  fundsWithdrawn: boolean;
  /** Movements of its money so far (dispute_fund_movements). */
  movements: number;
  /** The newest provider view applied: its time, and its sequence where the provider numbers them. */
  providerEventAt: Date;
  providerSequence: bigint | null;
  evidence: DisputeEvidence;
  evidenceSubmittedAt: Date | null;
  /** Sandbox: when the demo provider decides submitted evidence. */
  decideAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The merchant's evidence, staged until submitted; text fields bounded by the contract. */
export interface DisputeEvidence extends DisputeEvidenceText {
  /** Ids of documents uploaded for this dispute (`dpf_…`). */
  documents?: string[];
}

/**
 * What a provider says about one of its disputes, at one moment: a notification, a sync's read or
 * the sandbox's demo provider. Every input path maps its provider's own shape to this and calls
 * applyProviderView (apply.ts), which decides what, if anything, it changes.
 */
export interface ProviderDisputeView {
  /** The provider's code (`stripe`, `adyen`, `demo_alpha`): must be the one that took the payment. */
  providerCode: string;
  /** The provider's own id of the dispute; with providerCode and the scope, the dispute's key. */
  providerDisputeId: string;
  /** Our payment the dispute is about (the caller finds it from the provider's payment reference). */
  paymentId: string;
  stage: DisputeStage;
  status: DisputeStatus;
  reason: DisputeReason;
  /** The provider's own reason code, kept beside the normalised one. */
  providerReason?: string | null;
  /** What the provider disputes, in minor units of the payment's currency. */
  amount: Minor;
  currency: string;
  /** The provider's dispute fee when it reports one; otherwise the fee table's (fees.ts). */
  feeAmount?: Minor | null;
  /** Whether the provider holds the disputed funds away from the merchant now. */
  fundsWithdrawn: boolean;
  evidenceDueBy?: Date | null;
  /** When the provider made this view (its event's or the dispute's update time). */
  occurredAt: Date;
  /** The provider's ordering of its events when it has one (higher is newer); beats occurredAt. */
  sequence?: bigint | null;
}

/** A movement of a dispute's money (dispute_fund_movements), the ledger's once-only record. */
export interface FundMovement {
  id: string;
  disputeId: string;
  seq: number;
  kind: 'withdrawal' | 'reinstatement';
  amount: Minor;
  feeAmount: Minor;
  currency: string;
  createdAt: Date;
}

/** Who caused a change: the provider (any of its views) or the merchant (accept, submit evidence). */
export type ChangeSource = 'provider' | 'merchant';
