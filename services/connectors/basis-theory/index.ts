// Basis Theory, as the rest of the system learns it (provider-definition.ts): its facts, and its
// connector and forwarder, with the SDK behind them, loaded only by the part that calls the vault.
import type { ProviderDefinition } from '../provider-definition.js';
import { basisTheoryFacts } from './facts.js';

export const basisTheoryProvider: ProviderDefinition = {
  ...basisTheoryFacts,
  connector: async () => {
    const [connector, forwarding] = await Promise.all([import('./connector.js'), import('./proxy.js')]);
    return { create: connector.createBasisTheoryConnector, forwarder: forwarding.createBasisTheoryForwarder };
  },
};
