// Acme Pay, a provider that exists only in tests: one folder like connectors/<code>/, added to the
// list by one line in a test's stack options (`providers: [...PROVIDERS, acmePayProvider]`). Its
// connector, loaded only by payments, talks to the stand-in in ./stand-in.ts.
import type { ProviderDefinition } from '../../../services/connectors/provider-definition.js';
import { acmePayFacts } from './facts.js';

export const acmePayProvider: ProviderDefinition = {
  ...acmePayFacts,
  connector: async () => ({ create: (await import('./connector.js')).createAcmePayConnector }),
};
