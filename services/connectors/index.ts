// Provider connectors: how payments reaches each provider, chosen by provider code, and the seam
// through which a destination connector sends a card by a connected vault (vault-forwarding.ts).
import { DemoConnector } from './demo.js';
import type { DemoBehaviourSource } from './demo-behaviour.js';
import type { Connector } from './types.js';

export type {
  AccountCredentials, AttemptOutcome, AuthorizeRequest, AuthorizeResult, CardFacts, Connector, ConnectorFailure, CredentialCheck,
  CredentialSource,
  CustomerActionRequired, DisputeActionAnswer, DisputeActionRequest, DisputeEvidenceRequest, DisputeListRequest, HoldRequest,
  HoldResult, NextActionType, NotificationCheck, NotificationHint, NotificationRequest,
  NotificationSubject, PayoutOutcome, PayoutRequest, PayoutResult, PayoutStatusRequest, PayoutStatusResult,
  ProviderDispute, ProviderNotification,
  PaymentStatusResult, ProviderAccountRef, ProviderSettlement, ProviderSettlementItem, RefundOutcome, RefundRequest,
  RefundResult, RoutedAccount, SettlementListRequest, SettlementReportRead, SettlementReportRequest,
} from './types.js';
export { DisputeActionFailed } from './types.js';
export { DemoConnector };
export { demoPaymentId } from './demo.js';
export type { ProviderNetwork } from './provider-fetch.js';
// How a destination connector sends a card through a connected vault, and a vault plugs in.
export {
  forwardingFetch, type CardPlaceholders, type ForwardedAnswer, type ForwarderFactory, type ForwardRoute,
  type PreparedRequest, type VaultForwarder, type VaultForwarders,
} from './vault-forwarding.js';
export { PAYMENT_SCENARIOS, type Scenario } from './scenarios.js';
export type { DemoBehaviour, DemoBehaviourSource, DemoSegmentKey } from './demo-behaviour.js';
// A card's network and BIN range in one vocabulary, from a provider's answer or a stored method's display.
export { cardFactsOf } from './card-facts.js';

export interface ConnectorRegistry {
  forProvider(providerCode: string): Connector | undefined;
}

/**
 * Demo providers are built in (playing the projects' demo behaviour from `behaviours`); licensed
 * connectors are registered by code.
 */
export function createConnectorRegistry(
  licensed: Record<string, Connector> = {}, behaviours?: DemoBehaviourSource,
): ConnectorRegistry {
  const demo = new DemoConnector(behaviours);
  return {
    forProvider: (code) => (code.startsWith('demo_') ? demo : licensed[code]),
  };
}
