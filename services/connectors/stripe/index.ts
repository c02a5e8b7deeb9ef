// Stripe, as the rest of the system learns it (provider-definition.ts): its facts, and its
// connector, with the SDK behind it, loaded only by the part that calls the provider.
import type { ProviderDefinition } from '../provider-definition.js';
import { stripeFacts } from './facts.js';

export const stripeProvider: ProviderDefinition = {
  ...stripeFacts,
  connector: async () => ({ create: (await import('./connector.js')).createStripeConnector }),
};
