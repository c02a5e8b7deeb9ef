// What a PayPal order (Orders v2, as the SDK reads it) or an SDK error means in the connector
// interface's outcomes. Every failure goes through the tables in errors.ts.
import { feeFor } from '../../contract/fees.js';
import { failed, refusalOutcome } from '../outcome-mapping.js';
import { CONDITIONS, ruleFor, type PayPalRule } from './errors.js';
import type { AuthorizeResult, HoldResult, RoutedAccount } from '../types.js';

/** The fields of an order this connector reads (the SDK's camelCase model). */
export interface PayPalOrder {
  id?: string;
  status?: string;
  intent?: string;
  links?: Array<{ href: string; rel: string }>;
  purchaseUnits?: Array<{
    customId?: string;
    payments?: {
      captures?: Array<{ id?: string; status?: string; amount?: { value?: string } }>;
      authorizations?: Array<{ id?: string; status?: string }>;
    };
  }>;
}

/** An SDK error: ApiError (answered) carries statusCode and body; axios' errors and the SDK's abort carry neither. */
interface SdkError extends Error {
  statusCode?: number;
  body?: unknown;
  /** PayPal's error body; its OAuth errors name themselves `error` (invalid_client), the rest `name`. */
  result?: { name?: string; error?: string; message?: string; details?: Array<{ issue?: string; description?: string }> };
  errors?: unknown[];
  isAxiosError?: boolean;
}

/** Is this an error of the SDK's transport or of PayPal's answer? Anything else is our bug. */
export function isPayPalError(err: unknown): err is SdkError {
  if (!(err instanceof Error)) return false;
  const e = err as SdkError;
  return typeof e.statusCode === 'number' || e.isAxiosError === true || e.message === 'The HTTP call was aborted.';
}

function answerOf(e: SdkError): SdkError['result'] {
  if (e.result) return e.result;
  try {
    return typeof e.body === 'string' ? JSON.parse(e.body) as SdkError['result'] : undefined;
  } catch {
    return undefined;
  }
}

/** An error's rule, PayPal's code for the attempt (its issue, else name, else status) and message. */
export function describeError(err: SdkError): { rule: PayPalRule; code: string; message: string; issue?: string } {
  // An answer the SDK could not read (its schema refused it): PayPal may have acted.
  if (Array.isArray(err.errors)) return { rule: CONDITIONS.unreadable, code: 'unreadable_answer', message: CONDITIONS.unreadable.message };
  const status = typeof err.statusCode === 'number' ? err.statusCode : 0;
  const answer = status ? answerOf(err) : undefined;
  const issue = answer?.details?.[0]?.issue;
  const name = answer?.name ?? answer?.error;
  const rule = ruleFor({ status, name, issue });
  const code = issue ?? name ?? (status ? String(status) : 'no_answer');
  return { rule, code, message: answer?.details?.[0]?.description ?? answer?.message ?? rule.message, issue };
}

export function fromError(err: SdkError, id?: string): AuthorizeResult {
  const { rule, code, message } = describeError(err);
  return failed(rule, { id, code, message });
}

/** The link the customer approves the order on: `payer-action` (payment_source.paypal) or the older `approve`. */
export function approvalLink(order: PayPalOrder): string | undefined {
  return order.links?.find((l) => l.rel === 'payer-action' || l.rel === 'approve')?.href;
}

const unit = (o: PayPalOrder) => o.purchaseUnits?.[0];
export const captureOf = (o: PayPalOrder) => unit(o)?.payments?.captures?.find((c) => c.status !== 'DECLINED' && c.status !== 'FAILED') ?? unit(o)?.payments?.captures?.[0];
export const authorizationOf = (o: PayPalOrder) => unit(o)?.payments?.authorizations?.[0];
/** Our attempt id, which the order carries as its purchase unit's custom_id. */
export const attemptOfOrder = (o: PayPalOrder) => unit(o)?.customId;

const TAKEN = new Set(['COMPLETED', 'PARTIALLY_REFUNDED', 'REFUNDED']);
const HELD = new Set(['CREATED', 'CAPTURED', 'PARTIALLY_CAPTURED']);

/** A completed order: its capture (intent CAPTURE) or its authorization (AUTHORIZE) decides. */
function completed(o: PayPalOrder, success: (code: string) => AuthorizeResult): AuthorizeResult {
  const id = o.id ?? null;
  if (o.intent === 'AUTHORIZE') {
    const a = authorizationOf(o);
    if (a && HELD.has(a.status ?? '')) return success(a.status!);
    if (a?.status === 'DENIED') return failed(CONDITIONS.denied, { id, code: a.status });
    if (a?.status === 'VOIDED' || a?.status === 'EXPIRED') return failed(CONDITIONS.cancelled, { id, code: a.status });
    return failed(CONDITIONS.pending, { id, code: a?.status ?? o.status ?? null });
  }
  const c = captureOf(o);
  if (c && TAKEN.has(c.status ?? '')) return success(c.status!);
  if (c?.status === 'DECLINED') return failed(CONDITIONS.declined, { id, code: c.status });
  if (c?.status === 'FAILED') return failed(CONDITIONS.denied, { id, code: c.status });
  // PENDING: PayPal holds it for review; PAYMENT.CAPTURE.COMPLETED (or DENIED) says how it ends.
  return failed(CONDITIONS.pending, { id, code: c?.status ?? o.status ?? null });
}

/**
 * An order as its answer or its details show it. Waiting for the customer: their approval link.
 * APPROVED is not decided here: the connector completes it first (connector.ts). The fee is the
 * account's agreed pricing; PayPal's own fee arrives with its settlement, not built here.
 */
export function fromOrder(o: PayPalOrder, account: RoutedAccount, amount: bigint, manual: boolean): AuthorizeResult {
  const id = o.id ?? null;
  const fee = feeFor(account, amount);
  const success = (code: string): AuthorizeResult => ({
    outcome: 'success', providerPaymentId: id, providerCode: code, fee,
    providerMessage: manual ? 'Authorized at PayPal; the funds are held until captured' : 'Captured at PayPal',
  });
  switch (o.status) {
    case 'CREATED':
    case 'PAYER_ACTION_REQUIRED': {
      const url = approvalLink(o);
      if (!url) return failed(CONDITIONS.no_approval_link, { id, code: o.status });
      return {
        outcome: 'requires_action', providerPaymentId: id, providerCode: o.status, fee: 0n,
        providerMessage: 'The customer must approve the payment on PayPal\'s page',
        customerAction: { type: 'redirect', url, fee },
      };
    }
    case 'COMPLETED':
      return completed(o, success);
    case 'VOIDED':
      return failed(CONDITIONS.cancelled, { id, code: o.status });
    default:
      return failed(CONDITIONS.pending, { id, code: o.status ?? null });
  }
}

/**
 * An action (capture, void, refund) PayPal refused, by the same tables (refusalOutcome). An open
 * rule (no answer, 5xx, request id in use) is rethrown: the operation stays pending and is repeated
 * with the same PayPal-Request-Id.
 */
export function refusal(err: unknown): Omit<HoldResult, 'outcome'> & { outcome: HoldResult['outcome'] } {
  if (!isPayPalError(err)) throw err;
  const { rule, code, message } = describeError(err);
  const outcome = refusalOutcome(rule);
  if (!outcome) throw err;
  return { outcome, providerCode: code, providerMessage: message };
}
