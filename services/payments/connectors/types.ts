import type { RouteCandidate } from '../../../proto/gen/svc/routing/v1/routing_pb.js';

export type AttemptOutcome =
  | 'success'
  | 'requires_action'
  | 'soft_decline'
  | 'hard_decline'
  | 'technical_error'
  | 'timeout'
  | 'provider_unavailable'
  | 'unknown';

export interface AuthorizeRequest {
  paymentId: string;
  attemptId: string;
  attemptNumber: number;
  amount: bigint;
  currency: string;
  methodType: string;
  captureMethod: string;
  candidate: RouteCandidate;
  /**
   * The payment method's token: the request's `payment_method.token`, or a stored method's
   * (`payment_method.id`), whose payments go only to the provider that issued it when it names
   * one. Never stored with the payment, never logged.
   */
  paymentMethodToken?: string;
  /** Sandbox only: the scenario that forces this payment's outcomes. */
  testScenario?: string;
  /** Aborted when the orchestrator's deadline passes; a connector should stop its call then. */
  signal?: AbortSignal;
}

export interface AuthorizeResult {
  outcome: AttemptOutcome;
  providerPaymentId: string | null;
  providerCode: string | null;
  providerMessage: string | null;
  /** What the provider charges for this attempt, in minor units; 0 unless it succeeded. */
  fee: bigint;
  /** With outcome requires_action: what the customer must do before the provider decides. */
  customerAction?: CustomerActionRequired;
}

/** The contract's next_action.type values. */
export type NextActionType = 'redirect' | 'qr_code' | 'display_details';

/**
 * A provider waits for the customer: a redirect to its page, a QR code to scan, or bank details to
 * transfer to. In live mode `url` is the provider's hosted page and is required (without it the
 * customer could not act, and payments treats the answer as unknown); in test mode payments shows
 * its own sandbox page instead, so the demo providers leave it out.
 */
export interface CustomerActionRequired {
  type: NextActionType;
  url?: string;
  /** What a QR code encodes; defaults to `url`. */
  qrPayload?: string;
  /** When the provider stops waiting; default: now plus CUSTOMER_ACTION_TTL_MINUTES. */
  expiresAt?: Date;
  /** What the provider will charge if the customer approves; the attempt's fee stays 0 until then. */
  fee: bigint;
}

/**
 * What the provider knows of one attempt, asked after a time-out. The attempt id is the
 * reference sent with authorize, so a provider can look the attempt up by it.
 */
export type PaymentStatusResult =
  /** The provider never received the attempt: nobody was charged, failing over is safe. */
  | { found: false }
  /** The provider's own outcome; `timeout` or `unknown` here means it cannot tell yet. */
  | ({ found: true } & AuthorizeResult);

/** How payments talks to one provider. A licensed provider plugs in by implementing this. */
export interface Connector {
  authorize(req: AuthorizeRequest): Promise<AuthorizeResult>;
  /** The outcome of an earlier authorize whose answer never arrived (same request, same attempt id). */
  getStatus(req: AuthorizeRequest): Promise<PaymentStatusResult>;
  /** Returns money of a completed payment to the payer, at the provider that took it. */
  refund(req: RefundRequest): Promise<RefundResult>;
}

export type RefundOutcome = 'success' | 'hard_decline' | 'technical_error' | 'provider_unavailable';

export interface RefundRequest {
  /**
   * Our refund id, sent as the provider-side reference. A refund whose answer was lost is sent
   * again with the same id, so a connector must make it idempotent by this reference: a second
   * call answers the first refund's outcome and never refunds twice.
   */
  refundId: string;
  paymentId: string;
  providerCode: string;
  providerAccountId: string | null;
  providerPaymentId: string | null;
  amount: bigint;
  currency: string;
  reason?: string;
  /** Sandbox only: success, technical_error or hard_decline. */
  testScenario?: string;
  /** Aborted when the deadline passes; the refund is then sent again later with the same refundId. */
  signal?: AbortSignal;
}

export interface RefundResult {
  outcome: RefundOutcome;
  providerRefundId: string | null;
  providerCode: string | null;
  providerMessage: string | null;
}
