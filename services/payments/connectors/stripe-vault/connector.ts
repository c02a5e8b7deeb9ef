// A Stripe vault connection's connector: it answers the `test` call (an authenticated, harmless
// balance read, as Stripe's connector does) and refuses any payment call, since a vault connection
// is never routed to; forwarding through it is the destination connector's business.
import { rule } from '../error-rules.js';
import { failed } from '../outcome-mapping.js';
import type { ProviderNetwork } from '../provider-fetch.js';
import { createStripeClients } from '../stripe/client.js';
import { isStripeError } from '../stripe/outcomes.js';
import type { Connector, CredentialSource } from '../types.js';

const NOT_A_ROUTE = rule('technical', 'provider_unavailable', 'A vault connection takes no payment of its own', 'provider_unavailable');

export function createStripeVaultConnector(
  { credentials, network = { allowlist: [] } }: { credentials: CredentialSource; network?: ProviderNetwork },
): Connector {
  const clients = createStripeClients(credentials, network);
  return {
    authorize: async () => failed(NOT_A_ROUTE),
    getStatus: async () => ({ found: false }),
    refund: async () => ({
      outcome: 'hard_decline', providerRefundId: null, providerCode: null, providerMessage: NOT_A_ROUTE.message,
    }),
    async checkCredentials(account) {
      const stripe = await clients.forAccount(account.id);
      if (!stripe) return { ok: false, providerCode: null, message: 'The vault connection has no stored secret_key' };
      try {
        await stripe.client.balance.retrieve();
        return { ok: true };
      } catch (err) {
        if (!isStripeError(err)) throw err;
        return { ok: false, providerCode: err.code ?? err.type, message: err.message };
      }
    },
  };
}
