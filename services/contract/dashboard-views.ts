// What the stores answer the dashboard's pages with, in the JSON shape the pages read. This module
// imports only types of a file that imports nothing, so the dashboard (a browser bundle,
// dashboard/src) imports these types from here as well and both sides keep one shape.
import type { VerificationStatus } from './verification-status.js';

/** A recent /v1 call of the request log (never a body or query string). */
export interface RequestLogView {
  request_id: string;
  method: string;
  path: string;
  status: number;
  duration_ms: number;
  api_key_prefix: string;
  created_at: string;
  /** What a failed call (4xx, 5xx) answered, redacted (gateway/edge/request-log-redaction.ts); null otherwise. */
  error: { code: string; message: string; param: string | null } | null;
}

/** A merchant in the operator console's list. */
export interface OperatorMerchantView {
  id: string;
  name: string;
  /** approved, else the latest submission's status (pending, rejected), else not_submitted. */
  verification_status: VerificationStatus;
  created_at: string;
  owner_email: string | null;
}

/** A verification submission in the operator console's queue. */
export interface VerificationSubmissionView {
  id: string;
  object: 'verification';
  merchant_id: string;
  merchant_name: string;
  company_name: string;
  registration_number: string;
  country: string;
  documents: string[];
  status: string;
  /** The submitting user's email. */
  submitted_by: string;
  submitted_at: string;
  decided_at: string | null;
  rejection_reason: string | null;
}

/** An audit log entry with who and from which address. */
export interface AuditEntryView {
  id: string;
  actor: string;
  /** The dashboard user's email when the actor is one (user:<id>). */
  actor_email: string | null;
  action: string;
  merchant_id: string | null;
  project_id: string | null;
  target_id: string | null;
  data: Record<string, unknown>;
  client_address: string | null;
  created_at: string;
}
