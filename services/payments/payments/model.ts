import type { Failure } from '../../../proto/gen/svc/common/v1/common_pb.js';
import type { Minor } from '../../contract/money.js';

/** A payment as payments stores it; the proto and contract shapes are derived from it. */
export interface PaymentRecord {
  id: string;
  merchantId: string;
  projectId: string;
  mode: string;
  status: string;
  amount: Minor;
  currency: string;
  capturedAmount: Minor;
  refundedAmount: Minor;
  captureMethod: string;
  paymentMethodType: string;
  paymentMethodId: string | null;
  country: string | null;
  description: string | null;
  reference: string | null;
  customer: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  returnUrl: string | null;
  testScenario: string | null;
  /**
   * A merchant-initiated payment (the customer absent): the network transaction id its attempts
   * are sent with (payments.mit_network_transaction_id); null when the customer was present.
   */
  mitNetworkTransactionId: string | null;
  providerId: string | null;
  providerCode: string | null;
  providerName: string | null;
  providerAccountId: string | null;
  providerPaymentId: string | null;
  attemptCount: number;
  routingDecisionId: string | null;
  routingRule: string | null;
  /** Accounts the payment's credential does not reach, never tried (payments.route_skipped). */
  routeSkipped: SkippedJson[];
  riskDecisionId: string | null;
  riskScore: number | null;
  failure: FailureJson | null;
  /** Set while the customer's action is awaited (payments.next_action); null otherwise. */
  nextAction: NextActionJson | null;
  feeAmount: Minor;
  processingTimeMs: number | null;
  createdAt: Date;
  updatedAt: Date;
  processedAt: Date | null;
  attempts: AttemptRecord[];
  /** Its disputes as the payment lists them (read with the payment; written by the disputes folder only). */
  disputes?: DisputeSummaryRecord[];
}

export interface DisputeSummaryRecord {
  id: string;
  amount: Minor;
  currency: string;
  reason: string;
  stage: string;
  status: string;
  fundsWithdrawn: boolean;
  evidenceDueBy: Date | null;
  createdAt: Date;
}

export interface AttemptRecord {
  id: string;
  attemptNumber: number;
  status: string;
  outcome: string | null;
  providerId: string;
  providerCode: string;
  providerName: string | null;
  providerAccountId: string;
  providerPaymentId: string | null;
  providerResponseCode: string | null;
  providerMessage: string | null;
  failure: FailureJson | null;
  feeAmount: Minor;
  latencyMs: number | null;
  /** The account's pricing as routed (null for attempts made before it was recorded). */
  feeFixed: Minor | null;
  feeBps: number | null;
  /** The vault that forwarded the card to the provider; null: the provider was sent the token directly. */
  vault: string | null;
  /**
   * The card's network and BIN range as the provider's answer told them (connectors/card-facts.ts),
   * set with that answer and carried by its attempt.settled; not stored with the attempt, so
   * undefined on an attempt read back from the database.
   */
  card?: { network: string | null; binRange: string | null };
  createdAt: Date;
  updatedAt: Date;
}

/** An account routing skipped, as the payment's route shows it. */
export interface SkippedJson {
  provider_code: string;
  provider_name: string;
  provider_account_id: string;
  reason: string;
}

/** A failure as payments stores it; `declineReason` (a DeclineReason of the contract) only on a decline. */
export type FailureJson = Pick<Failure, 'code' | 'category' | 'message'> & { declineReason?: string };

/** The contract's next_action, as stored in payments.next_action; `expiresAt` is ISO 8601. */
export interface NextActionJson {
  type: string;
  url: string;
  qrPayload: string;
  expiresAt: string;
}

/** A timeline entry as its writer knows it; its description is told by timeline-descriptions.ts. */
export interface TimelineEntry {
  type: string;
  title: string;
  attemptId?: string;
  data?: Record<string, unknown>;
}

/** A provider's request for the customer's action, one per attempt that answered requires_action. */
export interface CustomerActionRecord {
  attemptId: string;
  paymentId: string;
  merchantId: string;
  projectId: string;
  mode: string;
  /** SHA-256 of the sandbox page's token; null for a provider-hosted page. */
  tokenHash: string | null;
  type: string;
  /** The provider's quote, charged only if the customer approves. */
  feeAmount: Minor;
  expiresAt: Date;
  createdAt: Date;
  completedAt: Date | null;
  /** approved, declined, expired or cancelled, once completed. */
  outcome: string | null;
}
