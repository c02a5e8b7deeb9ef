// The whole interface between payments and a payment provider, in plain TypeScript: a connector
// compiles against this file alone (no generated proto type, nothing of the rest of payments), and
// answers in the normalised outcomes below, from which the orchestrator decides what happens next.
// docs/connectors.md shows how to implement it. The outcome and next-action values are the
// contract's enumerations (a file that itself imports nothing).
import type { AttemptOutcomeValue, NextActionType } from '../../shared/contract/enums.js';

/** The merchant's account at a provider that a call acts for. */
export interface ProviderAccountRef {
  /** The provider's code, the one the connector is registered under (e.g. `acme_pay`). */
  providerCode: string;
  /** Our id of the account: a connector loads its credentials by it, from the deployment's secret store. */
  id: string;
}

/** An account as routing chose it for an attempt, with the price the merchant agreed with the provider. */
export interface RoutedAccount extends ProviderAccountRef {
  /** Price: fee = feeFixed + amount × feeBps / 10 000, in minor units (the demo providers charge it). */
  feeFixed: bigint;
  feeBps: number;
  /** How long a demo provider takes to answer; 0 for licensed providers. */
  latencyMs: number;
}

/** The contract's attempt outcomes: every connector's answer is normalised to one of them. */
export type AttemptOutcome = AttemptOutcomeValue;

export interface AuthorizeRequest {
  account: RoutedAccount;
  paymentId: string;
  /**
   * Our attempt id: send it as the provider's idempotency key / reference, so a retry of this call
   * and the status query after a time-out find this very attempt, and it is never charged twice.
   */
  attemptId: string;
  /** 1 for the first provider on the route, 2 after one failover, and so on. */
  attemptNumber: number;
  /** Minor units of `currency` (ISO 4217). */
  amount: bigint;
  currency: string;
  /** The contract's payment method type: card, wallet, open_banking, qr, bank_transfer, instant, local. */
  methodType: string;
  /** automatic or manual; with manual the provider only holds the funds. */
  captureMethod: string;
  /**
   * The payment method's token: the request's `payment_method.token`, or a stored method's
   * (`payment_method.id`), whose payments go only to the provider that issued it when it names
   * one. Never stored with the payment, never logged.
   */
  paymentMethodToken?: string;
  /** Sandbox only: the scenario that forces this payment's outcomes. */
  testScenario?: string;
  /** Aborted when the call's deadline passes: stop the call then (its outcome is then asked with getStatus). */
  signal: AbortSignal;
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
export type { NextActionType };

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

export type RefundOutcome = 'success' | 'hard_decline' | 'technical_error' | 'provider_unavailable';

export interface RefundRequest {
  /** The account that took the payment. */
  account: ProviderAccountRef;
  /**
   * Our refund id, sent as the provider-side reference. A refund whose answer was lost is sent
   * again with the same id, so a connector must make it idempotent by this reference: a second
   * call answers the first refund's outcome and never refunds twice.
   */
  refundId: string;
  paymentId: string;
  providerPaymentId: string | null;
  amount: bigint;
  currency: string;
  reason?: string;
  /** Sandbox only: success, technical_error or hard_decline. */
  testScenario?: string;
  /** Aborted when the deadline passes; the refund is then sent again later with the same refundId. */
  signal: AbortSignal;
}

export interface RefundResult {
  outcome: RefundOutcome;
  providerRefundId: string | null;
  providerCode: string | null;
  providerMessage: string | null;
}

/** How payments talks to one provider. A licensed provider plugs in by implementing this. */
export interface Connector {
  authorize(req: AuthorizeRequest): Promise<AuthorizeResult>;
  /** The outcome of an earlier authorize whose answer never arrived (same request, same attempt id). */
  getStatus(req: AuthorizeRequest): Promise<PaymentStatusResult>;
  /** Returns money of a completed payment to the payer, at the provider that took it. */
  refund(req: RefundRequest): Promise<RefundResult>;
}
