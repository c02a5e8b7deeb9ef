// PayPal, as the rest of the system learns it (provider-definition.ts): its facts, and its
// connector, with the SDK behind it, loaded only by the part that calls the provider.
import type { ProviderDefinition } from '../provider-definition.js';
import { paypalFacts } from './facts.js';

export const paypalProvider: ProviderDefinition = {
  ...paypalFacts,
  connector: async () => ({ create: (await import('./connector.js')).createPayPalConnector }),
};
