// Provider connectors: how payments reaches each provider, chosen by provider code.
import { DemoConnector } from './demo.js';
import type { Connector } from './types.js';

export type {
  AttemptOutcome, AuthorizeRequest, AuthorizeResult, Connector, CustomerActionRequired, NextActionType,
  PaymentStatusResult, ProviderAccountRef, RefundOutcome, RefundRequest, RefundResult, RoutedAccount,
} from './types.js';
export { DemoConnector };
export { PAYMENT_SCENARIOS, type Scenario } from './scenarios.js';

export interface ConnectorRegistry {
  forProvider(providerCode: string): Connector | undefined;
}

/** Demo providers are built in; licensed connectors are registered by code. */
export function createConnectorRegistry(licensed: Record<string, Connector> = {}): ConnectorRegistry {
  const demo = new DemoConnector();
  return {
    forProvider: (code) => (code.startsWith('demo_') ? demo : licensed[code]),
  };
}
