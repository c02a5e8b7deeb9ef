// The shapes the dashboard reads from /dashboard/api (docs/dashboard.md). Payments, refunds,
// timeline events and webhook objects are the contract's own; the session objects are the dashboard's.

import type { AttemptJson, DisputeSummaryJson, PaymentJson, RefundJson } from '../../../services/contract/resources';

export type Mode = 'test' | 'live';
export type Role = 'owner' | 'developer' | 'read_only';
export type Permission = 'view' | 'operate' | 'develop' | 'administer';

/**
 * The answer of a form that mails a link (registration, password reset): where the link went, which
 * is not a mailbox when the deployment has no mail server (the terminal of `npm start`, or nowhere).
 */
export interface LinkRequested {
  accepted: true;
  link_delivery: 'email' | 'terminal' | 'none';
}

export interface Session {
  user: { id: string; email: string; name?: string | null };
  merchant: { id: string; name: string; verification_status?: string | null };
  project: { id: string; name?: string | null };
  role: Role;
  permissions: Permission[];
  mode: Mode;
  csrf_token: string;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface Failure {
  code: string;
  category?: string;
  message?: string;
  /** Why the provider declined (the contract's decline reasons); null or absent when it was no decline. */
  decline_reason?: string | null;
}

/** The contract's payment, attempt, refund and dispute summary as the API serves them (services/contract/resources.ts). */
export type Attempt = AttemptJson;
export type DisputeSummary = DisputeSummaryJson;
export type Refund = RefundJson;
/** The contract's payment, its customer read as the merchant sent it. */
export type Payment = Omit<PaymentJson, 'customer'> & { customer: Customer | null };

/** A payment's customer as the merchant sent it (CustomerInput); every field optional. */
export interface Customer {
  id?: string | null;
  external_id?: string | null;
  email?: string | null;
  name?: string | null;
  country?: string | null;
}



/** The merchant's evidence, staged until submitted (docs/disputes.md, "Evidence"). */
export interface DisputeEvidence {
  product_description: string | null;
  customer_communication: string | null;
  shipping_carrier: string | null;
  shipping_tracking_number: string | null;
  refund_policy: string | null;
  uncategorized_text: string | null;
  documents: string[];
}

export interface DisputeDocument {
  id: string;
  filename: string;
  type: string;
  size: number;
  created_at: string;
}

export interface Dispute extends DisputeSummary {
  payment_id: string;
  fee_amount: number;
  provider_reason: string | null;
  provider: { id: string | null; code: string; name: string | null } | null;
  provider_dispute_id: string;
  evidence: DisputeEvidence;
  evidence_submitted_at: string | null;
  documents: DisputeDocument[];
  updated_at: string;
}

/** A credential of a stored payment method: never its token, only where it may be used. */
export interface PaymentMethodCredential {
  id: string;
  payment_method_id: string;
  type: 'provider_token' | 'vault_token';
  provider_code: string | null;
  provider_account_id: string | null;
  vault: string | null;
  created_at: string;
}

export interface TimelineEvent {
  id: string;
  type: string;
  title: string;
  description: string | null;
  attempt_id: string | null;
  /** The entry's own facts, by type (routing.decided: strategy, reason, explored, scores). */
  data: Record<string, unknown>;
  created_at: string;
}


export interface ApiKey {
  id: string;
  name: string;
  mode: Mode;
  prefix?: string;
  display_prefix?: string;
  status?: string;
  revoked_at?: string | null;
  last_used_at?: string | null;
  created_at: string;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  status: 'enabled' | 'disabled';
  description: string | null;
  created_at: string;
  max_deliveries_per_second: number | null;
  disabled_reason: 'manual' | 'failing' | null;
  disabled_at: string | null;
  failing_since: string | null;
  retry_after_until: string | null;
  health?: {
    attempts_24h: number;
    succeeded_24h: number;
    success_rate_24h: number | null;
    pending_deliveries: number;
    next_retry_at: string | null;
  };
}

export interface Delivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: string;
}

export interface DeliveryAttempt {
  id: string;
  attempt_number: number;
  manual: boolean;
  started_at: string | null;
  duration_ms: number;
  request_headers: Record<string, string>;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
}

export interface DeliveryDetail extends Delivery {
  event: unknown;
  attempts: DeliveryAttempt[];
}

export interface Member {
  id?: string;
  user_id?: string;
  email: string;
  role: Role;
  created_at?: string;
}

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  status?: string;
  expires_at?: string | null;
  created_at?: string;
}

export interface Verification {
  status: string;
  company_name?: string | null;
  registration_number?: string | null;
  country?: string | null;
  documents?: string[];
  /** Why an operator rejected it, when it was. */
  rejection_reason?: string | null;
  submitted_at?: string | null;
}

export interface Payout {
  id: string;
  mode: Mode;
  status: string;
  amount: number;
  currency: string;
  destination: { type: string; display: string; holder_name: string | null; country: string | null };
  route: { provider: { id: string; code: string; name: string } | null; provider_account_id: string | null; provider_payout_id: string | null; rule: string | null };
  fee: { amount: number; currency: string };
  failure: Failure | null;
  description?: string | null;
  reference?: string | null;
  created_at: string;
}

export interface Transaction {
  id: string;
  type: string;
  status: string;
  entity_type: string;
  entity_id: string;
  payment_id: string | null;
  amount: number;
  currency: string;
  fee_amount: number;
  net_amount: number;
  provider_name: string | null;
  provider_reference: string | null;
  payment_method: string | null;
  failure_code: string | null;
  settlement_id: string | null;
  occurred_at: string;
}

export interface Balance {
  currency: string;
  processed_gross: number;
  fees: number;
  processed_net: number;
  settled_by_providers: number;
  awaiting_provider_settlement: number;
  payouts_sent: number;
  note: string;
}

export interface Settlement {
  id: string;
  provider_name: string | null;
  settlement_entity: string | null;
  settlement_reference: string | null;
  currency: string;
  gross_amount: number;
  fee_amount: number;
  net_amount: number;
  transaction_count: number;
  period_start: string;
  period_end: string;
  status: string;
  settled_at: string | null;
  items?: Record<string, unknown>[];
}

export type { RequestLogView } from '../../../services/contract/dashboard-views';

export interface ProviderAccount {
  id: string;
  mode: Mode;
  provider: { code: string; name: string };
  name: string;
  status: 'active' | 'disabled';
  payment_method_types: string[];
  currencies: string[];
  countries: string[];
  fee_fixed: number;
  fee_bps: number;
  created_at: string | null;
}

/** A provider that can be connected and the credential fields its connector reads. */
export interface ConnectableProvider {
  provider: string;
  required: string[];
  optional: string[];
}

export interface ProviderAccountCheck {
  ok: boolean;
  reason: string | null;
  provider_error_code: string | null;
  message: string;
}

/** A routing rule's strategy ({type, weights | settings}, docs/routing.md) as the server keeps it. */
export type RoutingStrategy = { type: string } & Record<string, unknown>;

/** A routing rule of the project and mode, as GET /routing-rules lists it. */
export interface RoutingRule {
  id: string;
  name: string;
  priority: number;
  currencies: string[];
  countries: string[];
  payment_method_types: string[];
  min_amount: number | null;
  max_amount: number | null;
  providers: string[];
  strategy: RoutingStrategy | null;
  variant: { share: number; strategy: RoutingStrategy } | null;
  experiment_since: string | null;
  created_at: string | null;
}

export interface Interval {
  low: number;
  high: number;
}

/** One arm of a rule's A/B report: payments decided under it since the experiment began. */
export interface ArmReport {
  arm: 'control' | 'variant';
  share: number;
  strategy: RoutingStrategy;
  payments: number;
  approved: number;
  first_attempt_approved: number;
  first_attempt_acceptance: number | null;
  first_attempt_interval: Interval | null;
  acceptance: number | null;
  interval: Interval | null;
  failover: { extra_attempts_per_payment: number | null; fee_bps: number | null; latency_ms_per_payment: number | null };
}

export interface RoutingReport {
  rule: RoutingRule;
  since: string | null;
  arms: ArmReport[];
  difference: ({ estimate: number } & Interval) | null;
  first_attempt_difference: ({ estimate: number } & Interval) | null;
}
