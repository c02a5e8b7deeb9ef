// Stripe Vault and Forward, as the rest of the system learns it (provider-definition.ts): its facts, and its
// connector and forwarder, with the SDK behind them, loaded only by the part that calls the vault.
import type { ProviderDefinition } from '../provider-definition.js';
import { stripeVaultFacts } from './facts.js';

export const stripeVaultProvider: ProviderDefinition = {
  ...stripeVaultFacts,
  connector: async () => {
    const [connector, forwarding] = await Promise.all([import('./connector.js'), import('./forwarding.js')]);
    return { create: connector.createStripeVaultConnector, forwarder: forwarding.createStripeForwarder };
  },
};
