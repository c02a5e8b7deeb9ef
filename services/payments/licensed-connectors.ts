// The licensed providers' connectors this codebase ships, by provider code (the code of their
// routing_risk.providers row). The entrypoints hand them to build(), which makes each with the
// part's credential source; a provider account whose code is missing here is routed, and its
// attempts fail as provider_unavailable (docs/connectors.md).
import { createAdyenConnector } from './connectors/adyen/connector.js';
import { createStripeConnector } from './connectors/stripe/connector.js';
import type { ConnectorFactory } from './index.js';

export const LICENSED_CONNECTORS: Record<string, ConnectorFactory> = {
  adyen: createAdyenConnector,
  stripe: createStripeConnector,
};
