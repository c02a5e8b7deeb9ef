// What a Mollie payment or an SDK error means in the connector interface's outcomes. Every failure
// goes through the tables in errors.ts.
import { failed, refusalOutcome } from '../outcome-mapping.js';
import { CONDITIONS, ruleFor, type MollieRule } from './errors.js';
import type { AuthorizeResult, HoldResult, NextActionType } from '../types.js';

/** The fields of a Mollie payment this connector reads (the SDK's model keeps the API's names). */
export interface MolliePayment {
  id?: string;
  status?: string;
  method?: string | null;
  amount?: { currency?: string; value?: string };
  metadata?: unknown;
  createdAt?: string;
  expiresAt?: string;
  details?: { failureReason?: string } | null;
  _links?: { checkout?: { href?: string } | null };
  _embedded?: { refunds?: MollieRefund[] };
}

export interface MollieRefund {
  id?: string;
  status?: string;
  amount?: { currency?: string; value?: string };
  metadata?: unknown;
  createdAt?: string;
}

/** An SDK error (its ApiError: `statusCode` and `field` from Mollie's body) or our deadline. */
export interface MollieSdkError {
  name: string;
  message: string;
  statusCode?: number;
  field?: string;
}

/** Is this an error of a Mollie call (answered, refused by the SDK, or out of time)? Anything else is our bug. */
export function isMollieError(err: unknown): err is MollieSdkError {
  return err instanceof Error && (err.name === 'ApiError' || err.name === 'MollieDeadlineError');
}

/** An error's rule, Mollie's code for the attempt (status and field) and message. */
export function describeError(err: MollieSdkError): { rule: MollieRule; code: string; message: string } {
  if (err.name === 'MollieDeadlineError') return { rule: CONDITIONS.connection, code: 'timeout', message: CONDITIONS.connection.message };
  const status = Number(err.statusCode ?? 0) || 0;
  const rule = ruleFor({ httpStatus: status, field: err.field });
  const code = status ? `${status}${err.field ? `:${err.field}` : ''}` : err.name;
  return { rule, code, message: err.message || rule.message };
}

export function fromError(err: MollieSdkError): AuthorizeResult {
  const { rule, code, message } = describeError(err);
  return failed(rule, { code, message });
}

/** A string field of a payment's or refund's metadata (ours: payment_id, attempt_id, refund_id). */
export function metadataOf(entity: { metadata?: unknown }, key: string): string | null {
  const m = entity.metadata;
  if (!m || typeof m !== 'object') return null;
  const v = (m as Record<string, unknown>)[key];
  return typeof v === 'string' && v ? v : null;
}

const action = (method: string | null | undefined): NextActionType => (method === 'banktransfer' ? 'display_details' : 'redirect');

/**
 * A Mollie payment: `paid` (and `authorized`, the funds held) is a success; `open` with a checkout
 * link waits for the customer on Mollie's page (a bank transfer's page shows the transfer details);
 * `pending` waits for the method's own confirmation; failed, canceled and expired go through the table.
 * `fee` is the account's agreed pricing (0 for a notification: payments keeps the one quoted when
 * the attempt was answered); Mollie's own costs arrive with its settlements.
 */
export function fromPayment(p: MolliePayment, fee: bigint): AuthorizeResult {
  const id = p.id ?? null;
  if (p.status === 'paid' || p.status === 'authorized') {
    return {
      outcome: 'success', providerPaymentId: id, providerCode: p.status, fee,
      providerMessage: p.status === 'authorized' ? 'Authorized; the funds are held until captured' : 'Paid',
    };
  }
  if (p.status === 'open') {
    const url = p._links?.checkout?.href;
    if (!url) return failed(CONDITIONS.no_checkout, { id, code: p.status });
    const expires = p.expiresAt ? new Date(p.expiresAt) : undefined;
    return {
      outcome: 'requires_action', providerPaymentId: id, providerCode: p.status, fee: 0n,
      providerMessage: 'The customer pays on Mollie\'s page',
      customerAction: { type: action(p.method), url, fee, ...(expires && !Number.isNaN(expires.getTime()) && { expiresAt: expires }) },
    };
  }
  return failed(ruleFor({ status: p.status, failureReason: p.details?.failureReason }), {
    id, code: p.details?.failureReason ?? p.status ?? null,
  });
}

/**
 * An action (a refund) Mollie refused, by the same tables (refusalOutcome). An open rule (no answer,
 * 5xx) is rethrown: the caller keeps the refund pending and repeats it with the same key.
 */
export function refusal(err: unknown): { outcome: HoldResult['outcome']; providerCode: string | null; providerMessage: string } {
  if (!isMollieError(err)) throw err;
  const { rule, code, message } = describeError(err);
  const outcome = refusalOutcome(rule);
  if (!outcome) throw err;
  return { outcome, providerCode: code, providerMessage: message };
}
