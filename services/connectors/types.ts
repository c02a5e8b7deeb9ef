// The whole interface between payments and a payment provider, in plain TypeScript: a connector
// compiles against this file alone (no generated proto type, nothing of the rest of payments), and
// answers in the normalised outcomes below, from which the orchestrator decides what happens next.
// docs/connectors.md shows how to implement it. The outcome and next-action values are the
// contract's enumerations (a file that itself imports nothing).
import type {
  AttemptOutcomeValue, DisputeEvidenceText, DisputeReason, DisputeStage, DisputeStatus, FailureCategory, NextActionType,
} from '../contract/enums.js';
import type { DeclineReason } from '../contract/decline-reasons.js';

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
  /**
   * Set when routing chose to reach this provider through a vault: `paymentMethodToken`
   * is then the vault's reference, and the connector (one whose definition declares
   * `vaultForwarding`) builds its raw-card request with the vault's placeholders and sends it
   * through the vault. Its status query goes to the provider directly, without the card.
   */
  forwarding?: { vault: string; vaultAccountId: string };
  /**
   * Set when the customer is absent (a merchant-initiated charge of a stored card): the scheme's
   * network transaction id of an earlier customer-present payment, which the provider sends to the
   * network so the issuer sees a charge the cardholder agreed to. The connector marks the payment
   * as merchant-initiated in its own terms and asks for no authentication or CVC.
   */
  merchantInitiated?: { networkTransactionId: string };
  /** Sandbox only: the scenario that forces this payment's outcomes. */
  testScenario?: string;
  /**
   * Test mode only: the payment's project and country, by which a demo provider finds the project's
   * behaviour settings for the payment's segment (demo-behaviour.ts). Licensed connectors ignore it.
   */
  sandbox?: { projectId: string; country: string | null };
  /** The merchant's page the customer returns to after a provider's redirect (3-D Secure, bank page). */
  returnUrl?: string;
  /** Aborted when the call's deadline passes: stop the call then (its outcome is then asked with getStatus). */
  signal: AbortSignal;
}

/**
 * How a connector's error table names a failed attempt in the contract's terms; without it the
 * attempt shows the generic failure of its outcome.
 */
export interface ConnectorFailure {
  category: FailureCategory;
  /** Our failure code (the contract's `failure.code`), e.g. insufficient_funds. */
  code: string;
  message: string;
  /** Why the provider declined, in the contract's words (`failure.decline_reason`); only on a decline. */
  declineReason?: DeclineReason;
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
  /** For a failed outcome: the failure from the connector's error table, shown on the attempt. */
  failure?: ConnectorFailure;
  /** What the answer said about the card, where the provider tells it (card-facts.ts). */
  card?: CardFacts;
  /**
   * The scheme's network transaction id of a successful card payment, where the provider tells it
   * (Stripe's network_transaction_id, Adyen's networkTxReference): payments keeps it on the stored
   * method for later merchant-initiated charges. Not secret, and no card data.
   */
  networkTransactionId?: string;
}

/** A card's network and BIN range (first six digits at most); never its number. */
export interface CardFacts {
  network: string | null;
  binRange: string | null;
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
  /**
   * Set by a notification that can only follow an accepted refund (Adyen REFUNDED_REVERSED): the
   * refund's failure message when it fails after acceptance, saying why the funds came back.
   */
  reversalReason?: string;
}

/** Capturing held funds (all or part) or releasing a hold, at the provider that authorized them. */
export interface HoldRequest {
  account: ProviderAccountRef;
  paymentId: string;
  /** Our id of this capture or release: the provider's idempotency key, so a repeat never captures twice. */
  operationId: string;
  providerPaymentId: string;
  /** For a capture: minor units to take, at most the authorized amount. */
  amount: bigint;
  currency: string;
  signal: AbortSignal;
}

export interface HoldResult {
  outcome: 'success' | 'hard_decline' | 'technical_error' | 'provider_unavailable';
  providerCode: string | null;
  providerMessage: string | null;
}

/**
 * The contract's payout outcomes as a connector answers them; `pending` is a payout the provider
 * accepted and has not paid yet (it is asked again later with payoutStatus), `timeout` no answer.
 */
export type PayoutOutcome = 'success' | 'pending' | 'hard_decline' | 'technical_error' | 'provider_unavailable' | 'timeout';

export interface PayoutRequest {
  account: ProviderAccountRef;
  /**
   * Our payout id: send it as the provider's idempotency key and reference, so a payout whose
   * answer was lost is sent again with the same id and never paid twice.
   */
  payoutId: string;
  /** Minor units of `currency` (ISO 4217); convert by the provider's currency rule. */
  amount: bigint;
  currency: string;
  /** type: bank_account, wallet or card_token; token: the provider's beneficiary token. */
  destination: { type: string; token: string | null; holderName: string | null; country: string | null };
  description?: string;
  signal: AbortSignal;
}

export interface PayoutResult {
  outcome: PayoutOutcome;
  providerPayoutId: string | null;
  providerCode: string | null;
  providerMessage: string | null;
  /** For a failed outcome: the failure from the connector's payout error table. */
  failure?: ConnectorFailure;
}

/** A payout sent earlier: by the provider's id when its answer arrived, else by our payout id. */
export interface PayoutStatusRequest {
  account: ProviderAccountRef;
  payoutId: string;
  providerPayoutId: string | null;
  currency: string;
  signal: AbortSignal;
}

/** found false: the provider never received the payout, so sending it again is safe. */
export type PayoutStatusResult = { found: false } | ({ found: true } & PayoutResult);

/** The answer of a harmless authenticated call (`svc provider test`): are the stored credentials accepted? */
export type CredentialCheck = { ok: true } | { ok: false; providerCode: string | null; message: string };

/**
 * A licensed account's credentials, which the payments part keeps encrypted at rest and hands only to
 * the connector of the account's provider. `values` are the provider's own fields (for Stripe
 * `secret_key`, `webhook_secret`; for Adyen `api_key`, `merchant_account`, `hmac_key`,
 * `live_url_prefix`), plus `api_base_url` when the account points at a sandbox or a local stand-in.
 */
export interface AccountCredentials {
  mode: 'test' | 'live';
  values: Record<string, string>;
}

export interface CredentialSource {
  /** undefined when the account has no stored credentials (its attempts then fail as provider_unavailable). */
  get(accountId: string): Promise<AccountCredentials | undefined>;
}

/** A provider's notification (webhook) as it arrived at POST /providers/{provider}/webhooks/{account}. */
export interface NotificationHint {
  /** The provider payment id the delivery names; undefined when it names none (readNotification refuses it). */
  paymentIdOf(body: Buffer): string | undefined;
  /** The delivery body naming `paymentId`, as the provider posts it. */
  bodyFor(paymentId: string): Buffer;
}

export interface NotificationRequest {
  account: ProviderAccountRef;
  /** The exact bytes received: signatures are computed over them. */
  rawBody: Buffer;
  /** Header names lower-cased. */
  headers: Record<string, string | undefined>;
}

/**
 * What one notification says, normalised. A payment is found by our attempt id when the provider
 * echoes it (metadata, merchant reference), else by the provider's payment id; a refund by our refund
 * id or the provider's refund id; a payout is the payouts part's to decide (payments only reads it).
 * `ignored` is a notification payments has no use for (still 2xx).
 */
export type NotificationSubject =
  | { kind: 'payment'; attemptId: string | null; providerPaymentId: string; result: AuthorizeResult }
  | { kind: 'capture' | 'cancel'; providerPaymentId: string; result: HoldResult }
  | { kind: 'refund'; refundId: string | null; providerRefundId: string; result: RefundResult }
  | { kind: 'payout'; payoutId: string | null; providerPayoutId: string; result: PayoutResult }
  | { kind: 'dispute'; dispute: ProviderDispute }
  | { kind: 'ignored' };

/**
 * A provider's dispute (chargeback, inquiry, pre-arbitration) at one moment, in the contract's terms
 * (docs/disputes.md): what a notification, a sync's list or an action's answer says. The payment is
 * named as a payment notification names it: our attempt id when the provider echoes it (metadata,
 * merchant reference), else the provider's payment id, only among the account's own attempts.
 */
export interface ProviderDispute {
  providerDisputeId: string;
  attemptId: string | null;
  providerPaymentId: string | null;
  /** null: the provider's status does not tell the stage (a won or lost dispute); the dispute keeps its own, a new one is a chargeback. */
  stage: DisputeStage | null;
  status: DisputeStatus;
  reason: DisputeReason;
  /** The provider's own reason code or name, kept beside the normalised reason. */
  providerReason: string | null;
  /** Our minor units of `currency` (converted by the connector's currency rule). */
  amount: bigint;
  currency: string;
  /** The provider's dispute fee when it tells it; undefined keeps the dispute's. */
  feeAmount?: bigint;
  /** Whether the provider holds the disputed amount away from the merchant now. */
  fundsWithdrawn: boolean;
  /** undefined: the provider did not say (the dispute keeps its deadline). */
  evidenceDueBy?: Date | null;
  /** When the provider made this view (its event's time, or the dispute's update time). */
  occurredAt: Date;
  /** The provider's own ordering of its events, where it has one (higher is newer). */
  sequence?: bigint;
}

/** A dispute a merchant acts on, by the provider's id, at the account that took its payment. */
export interface DisputeActionRequest {
  account: ProviderAccountRef;
  providerDisputeId: string;
  signal: AbortSignal;
}

/** The merchant's evidence as the contract names it, and its documents' bytes. */
export interface DisputeEvidenceRequest extends DisputeActionRequest {
  evidence: DisputeEvidenceText;
  documents: Array<{ id: string; filename: string; contentType: string; content: Buffer }>;
}

/**
 * The provider's answer to an action: the dispute's status (and what else it said) after it. A
 * refusal or an unreachable provider is thrown as DisputeActionFailed (nothing changed here).
 */
export type DisputeActionAnswer = Partial<Pick<ProviderDispute, 'status' | 'stage' | 'fundsWithdrawn' | 'evidenceDueBy'>>;

/** The provider refused the action (declined: its own words) or could not be reached (unavailable). */
export class DisputeActionFailed extends Error {
  constructor(readonly kind: 'declined' | 'unavailable', message: string) {
    super(message);
  }
}

/** Dispute notifications the provider made since a moment, for the scheduled sync (jobs/dispute-sync.ts). */
export interface DisputeListRequest {
  account: ProviderAccountRef;
  since: Date;
  signal: AbortSignal;
}

export interface ProviderNotification {
  /** The provider's own event id: the de-duplication key (a replay changes nothing). */
  eventId: string;
  occurredAt: Date;
  subject: NotificationSubject;
}

/**
 * A verified notification (signature checked with the account's stored webhook secret or HMAC key),
 * possibly several at once (Adyen batches them), and the body the provider expects back; or a refusal
 * (forged, stale or unreadable), answered 400 and changing nothing.
 */
export type NotificationCheck =
  | { ok: true; notifications: ProviderNotification[]; acknowledgement?: string }
  | { ok: false; reason: string };

/**
 * One settlement batch as a provider reports it, in provider-neutral terms: what the ledger's one
 * settlement ingestion takes (docs/ledger.md, "Settlement reports"), with the merchant's scope and
 * account added by the caller. Amounts are our minor units of `currency`, signed as in the ledger.
 */
export interface ProviderSettlement {
  /** The provider's batch reference (Adyen's batch number, Stripe's payout id): unique per account. */
  reference: string;
  currency: string;
  status: 'pending' | 'settled' | 'failed';
  periodStart: Date;
  periodEnd: Date;
  settledAt: Date | null;
  /** Who paid out (Adyen's company account, Stripe's payout destination); null when unknown. */
  settlementEntity: string | null;
  items: ProviderSettlementItem[];
  /** Costs on the batch as a whole (Adyen's Fee or InvoiceDeduction rows, Stripe's account fees). */
  fees: Array<{ amount: bigint; description: string }>;
}

/**
 * A payment or refund the batch settles, named by as many of our and the provider's references as it
 * carries; `refund_reversal` is the amount of a refund the provider accepted and later failed, paid
 * back (Stripe's refund_failure, Adyen's RefundedReversed): it settles the ledger's reversal of that
 * refund, named like the refund. `dispute` is a disputed amount the provider withdrew (negative,
 * with its dispute fee: Adyen's Chargeback and SecondChargeback, Stripe's dispute adjustment, a
 * Mollie chargeback), `dispute_reversal` one it reinstated (ChargebackReversed, dispute_reversal),
 * named by the provider's dispute id and the disputed payment's reference.
 */
export interface ProviderSettlementItem {
  type: 'payment' | 'refund' | 'refund_reversal' | 'dispute' | 'dispute_reversal';
  /** Our attempt id when the provider echoes it (Adyen's Merchant Reference of a payment). */
  attemptId?: string;
  /** Our refund id when the provider echoes it (Adyen's Modification Merchant Reference, Stripe's refund metadata). */
  refundId?: string;
  /** The provider's id of the payment (pspReference, PaymentIntent), of the refund or of the dispute. */
  providerReference?: string;
  /** Dispute items: the provider's id of the disputed payment (Adyen's Psp Reference, a PaymentIntent). */
  paymentReference?: string;
  /** Positive for payments and refund and dispute reversals, negative for refunds and dispute withdrawals. */
  amount: bigint;
  fee: bigint;
}

/** A settlement report file as uploaded (Adyen's Settlement details report CSV). */
export interface SettlementReportRequest {
  account: ProviderAccountRef;
  text: string;
}

/** The batches a report holds, or where it is malformed (1-based line of the file, and the column). */
export type SettlementReportRead =
  | { ok: true; settlements: ProviderSettlement[] }
  | { ok: false; line: number | null; column: string | null; message: string };

export interface SettlementListRequest {
  account: ProviderAccountRef;
  /** Batches created at or after this moment; undefined for all the provider lists. */
  since?: Date;
  signal: AbortSignal;
}

/** How payments talks to one provider. A licensed provider plugs in by implementing this. */
export interface Connector {
  authorize(req: AuthorizeRequest): Promise<AuthorizeResult>;
  /** The outcome of an earlier authorize whose answer never arrived (same request, same attempt id). */
  getStatus(req: AuthorizeRequest): Promise<PaymentStatusResult>;
  /** Returns money of a completed payment to the payer, at the provider that took it. */
  refund(req: RefundRequest): Promise<RefundResult>;
  /** Takes held funds (capture_method manual). A provider without holds needs neither this nor cancel. */
  capture?(req: HoldRequest): Promise<HoldResult>;
  /** Releases held funds of an authorization that will not be captured. */
  cancel?(req: HoldRequest): Promise<HoldResult>;
  /** Sends a payout from the account's balance to a beneficiary; providers without payouts leave it out. */
  payout?(req: PayoutRequest): Promise<PayoutResult>;
  /** What the provider knows of an earlier payout (its answer lost, or accepted and not yet paid). */
  payoutStatus?(req: PayoutStatusRequest): Promise<PayoutStatusResult>;
  /** A harmless authenticated call that tells whether the account's credentials work. */
  checkCredentials?(account: ProviderAccountRef): Promise<CredentialCheck>;
  /** Verifies and reads a provider's notification; providers that send none leave it out. */
  readNotification?(req: NotificationRequest): Promise<NotificationCheck>;
  /**
   * For a provider whose notification is an unsigned hint that readNotification answers by
   * fetching the payment from the provider (Mollie): the provider payment id a delivery names, and
   * a delivery naming an id. Receiving then fetches only the account's own payments, coalesced per
   * id and bounded per account (provider-notifications/fetch-gate.ts).
   */
  notificationHint?: NotificationHint;
  /**
   * True when readNotification asks the provider about every delivery before anything is verified
   * (PayPal's verify-webhook-signature): receiving spends the account's notification budget first,
   * and a delivery beyond it is a 429, which the provider delivers again later (fetch-gate.ts).
   */
  notificationAsksProvider?: boolean;
  /** Reads a settlement report file the provider makes (uploaded by an operator); no provider call. */
  readSettlementReport?(req: SettlementReportRequest): Promise<SettlementReportRead>;
  /** Fetches the account's settlement batches from the provider's API. */
  listSettlements?(req: SettlementListRequest): Promise<ProviderSettlement[]>;
  /**
   * The account's disputes changed since `since`, as notifications (each with the event id its
   * webhook carries, or one of the dispute's own state, so a notification read twice is recorded
   * once): the scheduled sync's read. Providers without a list call leave it out.
   */
  listDisputes?(req: DisputeListRequest): Promise<ProviderNotification[]>;
  /** Accepts the dispute (the merchant concedes); providers that cannot leave it out. */
  acceptDispute?(req: DisputeActionRequest): Promise<DisputeActionAnswer>;
  /** Sends the merchant's evidence and submits it for the provider's review. */
  submitDisputeEvidence?(req: DisputeEvidenceRequest): Promise<DisputeActionAnswer>;
}
