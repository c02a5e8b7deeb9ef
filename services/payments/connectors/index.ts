// Provider connectors: how payments reaches each provider, chosen by provider code.
import { DemoConnector } from './demo.js';
import type { Connector } from './types.js';

export type {
  AccountCredentials, AttemptOutcome, AuthorizeRequest, AuthorizeResult, Connector, ConnectorFailure, CredentialCheck,
  CredentialSource,
  CustomerActionRequired, HoldRequest, HoldResult, NextActionType, NotificationCheck, NotificationRequest,
  NotificationSubject, PayoutOutcome, PayoutRequest, PayoutResult, PayoutStatusRequest, PayoutStatusResult,
  ProviderNotification,
  PaymentStatusResult, ProviderAccountRef, ProviderSettlement, ProviderSettlementItem, RefundOutcome, RefundRequest,
  RefundResult, RoutedAccount, SettlementListRequest, SettlementReportRead, SettlementReportRequest,
} from './types.js';
export { DemoConnector };
export type { ProviderNetwork } from './provider-fetch.js';
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
