// A Stripe vault connection's connector (vault-connection.ts): its `test` call is an authenticated,
// harmless balance read, as Stripe's connector's is.
import type { ProviderNetwork } from '../provider-fetch.js';
import { createStripeClients } from '../stripe/client.js';
import { checkByBalance } from '../stripe/outcomes.js';
import type { Connector, CredentialSource } from '../types.js';
import { vaultConnectionConnector } from '../vault-connection.js';

export function createStripeVaultConnector(
  { credentials, network = { allowlist: [] } }: { credentials: CredentialSource; network?: ProviderNetwork },
): Connector {
  const clients = createStripeClients(credentials, network);
  return vaultConnectionConnector(async (account) => {
    const stripe = await clients.forAccount(account.id);
    if (!stripe) return { ok: false, providerCode: null, message: 'The vault connection has no stored secret_key' };
    return checkByBalance(stripe.client);
  });
}
