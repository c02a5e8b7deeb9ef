// What an Adyen /payments answer, a modification's answer or an Adyen error means in the connector
// interface's outcomes. Every failure goes through the tables in errors.ts.
import type { Types } from '@adyen/api-library';
import { feeFor } from '../../contract/fees.js';
import { AdyenConnectionError, isAdyenHttpError, type AdyenHttpError as HttpError } from './client.js';
import { CONDITIONS, ruleFor, type AdyenAnswerLike, type AdyenRule } from './errors.js';
import { failed, refusalOutcome } from '../outcome-mapping.js';
import { cardFactsOf, withNetworkTransactionId } from '../card-facts.js';
import type { AuthorizeRequest, AuthorizeResult, CardFacts, HoldResult } from '../types.js';

type PaymentResponse = Types.checkout.PaymentResponse;

/** The library's HTTP error or our transport's; anything else is our bug and is rethrown by the callers. */
export function isAdyenError(err: unknown): err is HttpError | AdyenConnectionError {
  return isAdyenHttpError(err) || err instanceof AdyenConnectionError;
}

/** What the tables read from an error: status, errorCode and Adyen's Transient-Error header. */
function answerOf(err: HttpError): AdyenAnswerLike {
  const transient = String(err.responseHeaders?.['transient-error'] ?? '').toLowerCase() === 'true';
  return { status: err.statusCode, errorCode: err.errorCode, transient };
}

/** An error's rule, Adyen's code for the attempt (errorCode, else the HTTP status) and message. */
export function describeError(err: HttpError | AdyenConnectionError): { rule: AdyenRule; code: string; message: string } {
  if (err instanceof AdyenConnectionError) return { rule: CONDITIONS.connection, code: 'connection', message: err.message };
  const api = err.apiError as { message?: string; pspReference?: string } | undefined;
  return { rule: ruleFor(answerOf(err)), code: err.errorCode ?? String(err.statusCode), message: api?.message ?? err.message };
}

export function fromError(err: HttpError | AdyenConnectionError): AuthorizeResult {
  const { rule, code, message } = describeError(err);
  return failed(rule, { code, message });
}

/**
 * A /payments (or /payments/details) answer. Authorised is an approval: with manual capture the
 * orchestrator records it as `authorized` (funds held). The shopper actions (RedirectShopper,
 * IdentifyShopper, ChallengeShopper, PresentToShopper) wait for the customer on the page the
 * action names; a native 3-D Secure action without a page cannot be shown by this service. The fee
 * is the account's agreed pricing; Adyen's exact fees arrive with its settlement details.
 */
export function fromPayment(res: PaymentResponse, req: AuthorizeRequest): AuthorizeResult {
  const result = withNetworkTransactionId(paymentOutcome(res, req), res.additionalData?.networkTxReference);
  const card = cardOf(res);
  return card ? { ...result, card } : result;
}

/**
 * The card's network and BIN range where the answer has them: paymentMethod.brand (scheme
 * payments), else the additionalData fields paymentMethod and cardBin, which an account returns
 * once they are selected in the Customer Area (Developers > Additional data).
 */
export function cardOf(res: PaymentResponse): CardFacts | undefined {
  return cardFactsOf(res.paymentMethod?.brand ?? res.additionalData?.paymentMethod, res.additionalData?.cardBin);
}

function paymentOutcome(res: PaymentResponse, req: AuthorizeRequest): AuthorizeResult {
  const id = res.pspReference ?? null;
  const code = res.resultCode ?? null;
  const fee = feeFor(req.account, req.amount);
  switch (res.resultCode) {
    case 'Authorised':
      return {
        outcome: 'success', providerPaymentId: id, providerCode: code, fee,
        providerMessage: req.captureMethod === 'manual' ? 'Authorised; the funds are held until captured' : 'Authorised',
      };
    case 'RedirectShopper':
    case 'IdentifyShopper':
    case 'ChallengeShopper':
    case 'PresentToShopper': {
      const url = (res.action as { url?: string } | null | undefined)?.url;
      if (!url) return failed(CONDITIONS.unsupported_action, { id, code: res.action?.type ?? code });
      return {
        outcome: 'requires_action', providerPaymentId: id, providerCode: code, fee: 0n,
        providerMessage: 'The customer must act on the page Adyen names',
        customerAction: { type: 'redirect', url, fee },
      };
    }
    default: {
      const rule = ruleFor({ resultCode: res.resultCode, refusalReasonCode: res.refusalReasonCode, refusalReason: res.refusalReason });
      return failed(rule, { id, code: res.refusalReasonCode ? `${code}:${res.refusalReasonCode}` : code, message: res.refusalReason ?? null });
    }
  }
}

/**
 * A modification (capture, cancel, refund) Adyen refused, by the same tables (refusalOutcome). An
 * open rule (no answer, 5xx, key in use, transient) is rethrown: the caller keeps the operation
 * pending and repeats it with the same key.
 */
export function refusal(err: unknown): { outcome: HoldResult['outcome']; providerCode: string | null; providerMessage: string } {
  if (!isAdyenError(err)) throw err;
  const { rule, code, message } = describeError(err);
  const outcome = refusalOutcome(rule);
  if (!outcome) throw err;
  return { outcome, providerCode: code, providerMessage: message };
}
