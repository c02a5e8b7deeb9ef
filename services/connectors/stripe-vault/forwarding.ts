// Stripe Vault and Forward's side of a forwarded attempt, on the official SDK: the destination's
// prepared request goes to Stripe's Forwarding API (`forwarding.requests.create`) with the card's
// PaymentMethod and the replacements; Stripe inserts the card by the destination's configured
// schema, calls it, and answers the destination's response in `response_details`, redacted.
import type { ProviderNetwork } from '../provider-fetch.js';
import { createStripeClients, withSignal } from '../stripe/client.js';
import { isStripeError } from '../stripe/outcomes.js';
import type { CredentialSource } from '../types.js';
import type { CardPlaceholders, ForwardedAnswer, VaultForwarder } from '../vault-forwarding.js';

/**
 * Stripe's documented request body leaves each card field present and empty; Stripe fills it
 * (https://docs.stripe.com/api/forwarding/forwarding_requests/create, the `request[body]` example).
 */
export const STRIPE_PLACEHOLDERS: CardPlaceholders = { number: '', expiryMonth: '', expiryYear: '', cvc: '', holderName: '' };

/** What Stripe replaces: every card field our destinations' raw-card requests carry. */
const REPLACEMENTS = ['card_number', 'card_expiry', 'card_cvc', 'cardholder_name'];

/** The vault gave no answer of the destination; the message never holds card data (we never had it). */
export class StripeForwardingError extends Error {
  override readonly name = 'StripeForwardingError';
}

// Stripe adds its own Content-Type; a header named twice would reach the destination twice.
const STRIPE_SETS = new Set(['content-type', 'content-length', 'host']);

export function createStripeForwarder(
  { credentials, network = { allowlist: [] } }: { credentials: CredentialSource; network?: ProviderNetwork },
): VaultForwarder {
  const clients = createStripeClients(credentials, network);
  return {
    placeholders: () => STRIPE_PLACEHOLDERS,
    async forward(route, request, signal): Promise<ForwardedAnswer> {
      const stripe = await clients.forAccount(route.vaultAccountId);
      if (!stripe) throw new StripeForwardingError('The Stripe vault connection has no stored secret_key');
      let forwarded;
      try {
        forwarded = await withSignal(signal, () => stripe.client.forwarding.requests.create({
          payment_method: route.token,
          url: request.url,
          request: {
            headers: Object.entries(request.headers).filter(([name]) => !STRIPE_SETS.has(name.toLowerCase()))
              .map(([name, value]) => ({ name, value })),
            body: request.body,
          },
          replacements: REPLACEMENTS,
          // Stripe asks for a key of its own, different from the destination's (our attempt id).
        }, { idempotencyKey: `${route.attemptId}-forward` }));
      } catch (err) {
        if (!isStripeError(err)) throw err;
        throw new StripeForwardingError(`Stripe's Forwarding API: ${err.message}`);
      }
      const answer = forwarded.response_details;
      if (!answer) throw new StripeForwardingError(`Stripe's Forwarding API relayed no answer of the destination (${forwarded.id})`);
      return {
        status: answer.status,
        headers: Object.fromEntries(answer.headers.map((h) => [h.name.toLowerCase(), h.value])),
        body: answer.body,
      };
    },
  };
}
