// What a PaymentIntent, a Refund or a Stripe error means in the connector interface's outcomes.
// Every failure goes through the table in errors.ts.
import type Stripe from 'stripe';
import { feeFor } from '../../contract/fees.js';
import { answerId, answerStatus, failed, refusalOutcome } from '../outcome-mapping.js';
import { CONDITIONS, ruleFor, type StripeErrorLike } from './errors.js';
import { stripeSdk } from './client.js';
import { cardFactsOf, withNetworkTransactionId } from '../card-facts.js';
import type { AuthorizeRequest, AuthorizeResult, CardFacts, CredentialCheck, HoldResult, RefundResult } from '../types.js';

/** The Stripe code shown on an attempt: the most specific one Stripe gave. */
function providerCodeOf(err: StripeErrorLike): string | null {
  return err.decline_code ?? err.code ?? err.type ?? null;
}

/** Is this the SDK's error, answered by Stripe or by the transport? Anything else is our bug and is rethrown. */
export function isStripeError(err: unknown): err is Stripe.errors.StripeError {
  // Before the SDK is loaded no error of its classes exists.
  const sdk = stripeSdk.loaded();
  return sdk !== undefined && err instanceof sdk.errors.StripeError;
}

/**
 * A secret key's check, for a Stripe account and a Stripe vault connection alike: an authenticated,
 * harmless balance read; Stripe's refusal is the check's, with its code and message.
 */
export async function checkByBalance(client: Stripe): Promise<CredentialCheck> {
  try {
    await client.balance.retrieve();
    return { ok: true };
  } catch (err) {
    if (!isStripeError(err)) throw err;
    return { ok: false, providerCode: err.code ?? err.type, message: err.message };
  }
}

/** An error thrown by PaymentIntent create (a decline carries its PaymentIntent and the card's PaymentMethod). */
export function fromError(err: Stripe.errors.StripeError): AuthorizeResult {
  return withCard(
    failed(ruleFor(err), { id: err.payment_intent?.id, code: providerCodeOf(err), message: err.message }),
    cardFactsOf(err.payment_method?.card?.brand, undefined),
  );
}

/**
 * The card's network and BIN range from the PaymentIntent's charge (created with
 * expand[]=latest_charge): payment_method_details.card's network (else brand) and its iin, which
 * Stripe fills only for some accounts.
 */
export function cardOfIntent(pi: Stripe.PaymentIntent): CardFacts | undefined {
  const charge = pi.latest_charge;
  const card = charge && typeof charge === 'object' ? charge.payment_method_details?.card : undefined;
  return card ? cardFactsOf(card.network ?? card.brand, card.iin) : undefined;
}

const withCard = (result: AuthorizeResult, card: CardFacts | undefined): AuthorizeResult => (card ? { ...result, card } : result);

/** An approved PaymentIntent: succeeded, or requires_capture (the funds held until captured). */
export function approval(pi: Stripe.PaymentIntent, fee: bigint): AuthorizeResult {
  return {
    outcome: 'success',
    providerPaymentId: pi.id,
    providerCode: pi.status,
    providerMessage: pi.status === 'requires_capture' ? 'Authorized; the funds are held until captured' : 'Payment succeeded',
    fee,
  };
}

/** A PaymentIntent declined with its last_payment_error, by the table. */
export function declined(pi: Stripe.PaymentIntent, e: StripeErrorLike & { message?: string }): AuthorizeResult {
  return failed(ruleFor(e), { id: pi.id, code: providerCodeOf(e), message: e.message ?? null });
}

/**
 * A PaymentIntent after confirm. succeeded and requires_capture are both an approval: with
 * capture_method manual the orchestrator records it as `authorized` (funds held), as for the demo
 * providers. The fee is the account's agreed pricing; Stripe's exact fee arrives with its balance
 * transactions (settlements).
 */
export function fromIntent(pi: Stripe.PaymentIntent, req: AuthorizeRequest): AuthorizeResult {
  const charge = typeof pi.latest_charge === 'object' ? pi.latest_charge : undefined;
  const result = withCard(intentOutcome(pi, req), cardOfIntent(pi));
  return withNetworkTransactionId(result, charge?.payment_method_details?.card?.network_transaction_id);
}

function intentOutcome(pi: Stripe.PaymentIntent, req: AuthorizeRequest): AuthorizeResult {
  const fee = feeFor(req.account, req.amount);
  switch (pi.status) {
    case 'succeeded':
    case 'requires_capture':
      return approval(pi, fee);
    case 'requires_action': {
      const url = pi.next_action?.redirect_to_url?.url;
      if (!url) return failed(CONDITIONS.unsupported_next_action, { id: pi.id, code: pi.next_action?.type ?? null });
      return {
        outcome: 'requires_action',
        providerPaymentId: pi.id,
        providerCode: 'requires_action',
        providerMessage: 'The customer must authenticate on the issuer\'s page',
        fee: 0n,
        customerAction: { type: 'redirect', url, fee },
      };
    }
    case 'requires_payment_method':
      if (pi.last_payment_error) return declined(pi, pi.last_payment_error);
      return failed(CONDITIONS.unexpected_status, { id: pi.id, code: pi.status });
    case 'processing':
      return failed(CONDITIONS.processing, { id: pi.id, code: pi.status });
    case 'canceled':
      return failed(CONDITIONS.canceled, { id: pi.id, code: pi.cancellation_reason ?? pi.status });
    default:
      return failed(CONDITIONS.unexpected_status, { id: pi.id, code: pi.status });
  }
}

/**
 * A money-moving call (refund, capture, cancel) that Stripe refused, by the same table
 * (refusalOutcome). An open rule (no answer, 5xx, key in use) is rethrown: the caller keeps the
 * operation pending and repeats it with the same Idempotency-Key.
 */
export function refusal(err: unknown): { outcome: HoldResult['outcome']; providerCode: string | null; providerMessage: string } {
  if (!isStripeError(err)) throw err;
  const outcome = refusalOutcome(ruleFor(err));
  if (!outcome) throw err;
  return { outcome, providerCode: providerCodeOf(err), providerMessage: err.message };
}

/** A Refund's statuses (https://docs.stripe.com/api/refunds/object#refund_object-status). */
const REFUND_STATUSES = ['succeeded', 'pending', 'requires_action', 'failed', 'canceled'] as const;

/**
 * A Refund object: pending is accepted by Stripe (a later failure comes by webhook,
 * charge.refund.updated). One without its id or with a status not listed decides nothing
 * (UnreadableAnswer): the refund is asked again under its Idempotency-Key.
 */
export function fromRefund(r: Stripe.Refund): RefundResult {
  const id = answerId('Stripe', 'refund', r);
  const status = answerStatus('Stripe', 'refund', r, REFUND_STATUSES);
  const accepted = status === 'succeeded' || status === 'pending' || status === 'requires_action';
  return {
    outcome: accepted ? 'success' : 'hard_decline',
    providerRefundId: id,
    providerCode: status,
    providerMessage: accepted ? 'Refund accepted' : `Refund ${status}${r.failure_reason ? `: ${r.failure_reason}` : ''}`,
  };
}

/** A PaymentIntent's statuses (https://docs.stripe.com/api/payment_intents/object#payment_intent_object-status). */
const INTENT_STATUSES = [
  'requires_payment_method', 'requires_confirmation', 'requires_action', 'processing', 'requires_capture', 'canceled', 'succeeded',
] as const;

/** A capture's or cancel's PaymentIntent: `done` is the operation's success, another listed status its refusal. */
export function fromHeldIntent(pi: Stripe.PaymentIntent, operation: string, done: Stripe.PaymentIntent.Status): HoldResult {
  answerId('Stripe', operation, pi);
  const status = answerStatus('Stripe', operation, pi, INTENT_STATUSES);
  if (status === done) return { outcome: 'success', providerCode: status, providerMessage: null };
  return { outcome: 'hard_decline', providerCode: status, providerMessage: `The PaymentIntent is ${status}` };
}
