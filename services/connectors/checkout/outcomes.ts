// What a Checkout.com payment, its details or an SDK error mean in the connector interface's
// outcomes. Every failure goes through the tables in errors.ts.
import { feeFor } from '../../contract/fees.js';
import { failed, refusalOutcome } from '../outcome-mapping.js';
import { CONDITIONS, ruleFor } from './errors.js';
import type { AuthorizeRequest, AuthorizeResult, HoldResult } from '../types.js';

/** The fields of a payment response or payment details this connector reads. */
export interface CheckoutPayment {
  id?: string;
  status?: string;
  approved?: boolean;
  response_code?: string;
  response_summary?: string;
  reference?: string;
  _links?: { redirect?: { href?: string } };
}

/** An SDK error: its classes carry the HTTP status as `http_code` and Checkout.com's body as `body`. */
export interface CheckoutSdkError {
  name: string;
  http_code?: number;
  body?: unknown;
  message: string;
}

/** Is this an error the SDK raised (answered, timed out, or refused before sending)? Anything else is our bug. */
export function isCheckoutError(err: unknown): err is CheckoutSdkError {
  if (!(err instanceof Error)) return false;
  return 'http_code' in err || err.name === 'ValueError' || err.name === 'ApiTimeout';
}

/** Checkout.com's 4xx body: `{request_id, error_type, error_codes: [...]}`. */
function errorCodeOf(body: unknown): string | undefined {
  const codes = (body as { error_codes?: unknown } | null | undefined)?.error_codes;
  return Array.isArray(codes) && typeof codes[0] === 'string' ? codes[0] : undefined;
}

/** An error's rule, Checkout.com's code for the attempt (its error code, else the status) and message. */
export function describeError(err: CheckoutSdkError): { rule: ReturnType<typeof ruleFor>; code: string; message: string } {
  if (err.name === 'ValueError') return { rule: CONDITIONS.refused_by_sdk, code: 'ValueError', message: err.message };
  const status = Number(err.http_code ?? 0) || 0;
  const errorCode = errorCodeOf(err.body);
  const rule = ruleFor({ status, errorCode });
  const message = typeof err.body === 'string' ? err.body : rule.message;
  return { rule, code: errorCode ?? (status ? String(status) : err.name), message };
}

export function fromError(err: CheckoutSdkError): AuthorizeResult {
  const { rule, code, message } = describeError(err);
  return failed(rule, { code, message });
}

/** A decline by its response_code, with Checkout.com's summary beside our failure. */
export function declined(p: CheckoutPayment): AuthorizeResult {
  return failed(ruleFor({ responseCode: p.response_code }), {
    id: p.id, code: p.response_code ?? p.status ?? null, message: p.response_summary ?? null,
  });
}

const APPROVED = new Set(['Authorized', 'Captured', 'Partially Captured', 'Card Verified', 'Paid', 'Refunded', 'Partially Refunded']);
const ENDED = new Set(['Voided', 'Canceled', 'Expired']);

/**
 * A payment response (201 approved or declined, 202 pending) or a payment's details. Approved is a
 * success: with capture false the orchestrator records it as `authorized` (funds held). Pending
 * with a redirect link waits for the customer on 3-D Secure's page. The fee is the account's agreed
 * pricing; Checkout.com's own fees arrive with its reconciliation reports.
 */
export function fromPayment(p: CheckoutPayment, req: AuthorizeRequest): AuthorizeResult {
  const id = p.id ?? null;
  const fee = feeFor(req.account, req.amount);
  if (p.approved === true || APPROVED.has(p.status ?? '')) {
    return {
      outcome: 'success', providerPaymentId: id, providerCode: p.response_code ?? p.status ?? null, fee,
      providerMessage: req.captureMethod === 'manual' ? 'Authorized; the funds are held until captured' : (p.response_summary ?? 'Approved'),
    };
  }
  if (p.status === 'Pending') {
    const url = p._links?.redirect?.href;
    if (!url) return failed(CONDITIONS.pending, { id, code: p.status });
    return {
      outcome: 'requires_action', providerPaymentId: id, providerCode: p.status, fee: 0n,
      providerMessage: 'The customer must authenticate on the issuer\'s page',
      customerAction: { type: 'redirect', url, fee },
    };
  }
  if (ENDED.has(p.status ?? '')) return failed(CONDITIONS.cancelled, { id, code: p.status });
  if (p.status === 'Declined' || p.approved === false) return declined(p);
  return failed(CONDITIONS.pending, { id, code: p.status ?? null });
}

/**
 * An action (capture, void, refund) Checkout.com refused, by the same tables (refusalOutcome). An
 * open rule (no answer, 5xx, key in use) is rethrown: the caller keeps the operation pending and
 * repeats it with the same key.
 */
export function refusal(err: unknown): { outcome: HoldResult['outcome']; providerCode: string | null; providerMessage: string } {
  if (!isCheckoutError(err)) throw err;
  const { rule, code, message } = describeError(err);
  const outcome = refusalOutcome(rule);
  if (!outcome) throw err;
  return { outcome, providerCode: code, providerMessage: message };
}
