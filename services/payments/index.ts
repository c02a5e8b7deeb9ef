// payments: runs payment orchestration (PaymentsService) and refunds (RefundsService), keeps
// provider accounts' credentials (ProviderCredentialsService), takes the providers' own
// notifications (ProviderNotificationsService), keeps the sandbox's demo behaviour per project
// (DemoBehaviourService), keeps payments' disputes (DisputesService) and hands their deadline reminders to the
// gateway (DisputeRemindersService), sends the payouts part's payouts through licensed
// accounts (ProviderPayoutsService) and reads what providers settled (ProviderSettlementsService).
// Owns schema payments; emits payment.*, refund.* and dispute.* events.
import type { Client } from '@connectrpc/connect';
import { DemoBehaviourService } from '../../proto/gen/svc/payments/v1/demo_behaviour_pb.js';
import { DisputeRemindersService } from '../../proto/gen/svc/payments/v1/dispute_reminders_pb.js';
import { DisputesService } from '../../proto/gen/svc/payments/v1/disputes_pb.js';
import { PaymentMethodsService } from '../../proto/gen/svc/payments/v1/payment_methods_pb.js';
import { PaymentsService } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import { ProviderCredentialsService } from '../../proto/gen/svc/payments/v1/provider_credentials_pb.js';
import { ProviderNotificationsService } from '../../proto/gen/svc/payments/v1/provider_notifications_pb.js';
import { ProviderSettlementsService } from '../../proto/gen/svc/payments/v1/provider_settlements_pb.js';
import { ProviderPayoutsService } from '../../proto/gen/svc/payments/v1/provider_payouts_pb.js';
import { RefundsService } from '../../proto/gen/svc/payments/v1/refunds_pb.js';
import type { LedgerService } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import type { ProviderAccountsService } from '../../proto/gen/svc/routing/v1/provider_accounts_pb.js';
import type { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { warnRenamedVariables } from '../platform/config.js';
import { bindingSweep } from '../platform/idempotency-bindings.js';
import { assemblePart, createRelay, type ServiceDeps, type ServicePart } from '../platform/part.js';
import type { PartInfo } from '../platform/standalone.js';
import { createConnectorRegistry, type Connector, type ProviderNetwork } from '../connectors/index.js';
import { instrumentConnectors } from '../connectors/instrumented.js';
import { issuerOfTokens, providersByCode, type LoadedProvider } from '../connectors/provider-definition.js';
import { createVaultForwarders } from '../connectors/vault-forwarding.js';
import {
  createAuthorizationExpiry, createCustomerActionExpiry, createDisputeReminders, createDisputeSync, createReconciliation, createSettlementSync,
  disputeReminderRoutes,
} from './jobs/index.js';
import {
  createCustomerActions, createLifecycle, createOrchestrator, createStore, paymentOutcomes, routes, type CredentialSources,
} from './payments/index.js';
import { createDemoBehaviourStore, demoBehaviourRoutes } from './demo-behaviour/index.js';
import { createDisputeParts, disputeRoutes } from './disputes/index.js';
import { createPaymentMethodStore, createTokenBox, paymentMethodRoutes } from './payment-methods/index.js';
import { createCredentialStore, providerCredentialRoutes } from './provider-credentials/index.js';
import { createFollowUps, createReceiver, disputeNotified, providerNotificationRoutes } from './provider-notifications/index.js';
import { providerDisputeActions } from './provider-disputes/index.js';
import { createLateCharges } from './late-charges/index.js';
import { createSettlementLookups, providerSettlementRoutes } from './provider-settlements/index.js';
import { providerPayoutRoutes } from './provider-payouts/index.js';
import { createRefunds, refundRoutes } from './refunds/index.js';

// What a licensed provider implements to plug in (docs/connectors.md).
export type {
  AccountCredentials, AuthorizeRequest, AuthorizeResult, Connector, CredentialSource, PaymentStatusResult,
  ProviderNetwork, RefundRequest, RefundResult,
} from '../connectors/index.js';

export type { ConnectorFactory, LoadedProvider, ProviderDefinition } from '../connectors/provider-definition.js';
export type { CardPlaceholders, ForwarderFactory, VaultForwarder, VaultForwarders } from '../connectors/index.js';
export { loadProviders } from '../connectors/provider-definition.js';

/** How often the sandbox's demo providers open due chargebacks and decide due evidence (docs/disputes.md). */
const SANDBOX_DISPUTE_SWEEP_MS = 1_000;
/** Evidence-deadline reminders are looked for every minute (each dispute is reminded at most once a day). */
const DISPUTE_REMINDER_SWEEP_MS = 60_000;

/** How long a settlement or dispute sync may take at the provider (a request per payout and page). */
const SETTLEMENT_LIST_TIMEOUT_MS = 60_000;

/** How long a merchant's dispute action may take at the provider: evidence uploads up to ten documents of 4 MiB first. */
const DISPUTE_ACTION_TIMEOUT_MS = 60_000;

export const PART: PartInfo = { name: 'payments', schema: 'payments', dir: 'services/payments' };

export interface PaymentsDeps extends ServiceDeps {
  routing: Client<typeof RoutingService>;
  /**
   * routing-risk's provider accounts and the ledger: with both, providers' settlements are synced into
   * the ledger every SETTLEMENT_SYNC_INTERVAL_MS (jobs/settlement-sync.ts); without, only
   * by an operator's svc settlement sync.
   */
  providerAccounts?: Client<typeof ProviderAccountsService>;
  ledger?: Client<typeof LedgerService>;
  /**
   * The licensed providers with their connectors loaded (`loadProviders(PROVIDERS)`, the list of
   * services/connectors/providers.ts): each one's connector is made with the part's credential
   * source; its facts drive connects, notifications and the settlement sync. A test adds its own
   * stand-in provider to the list.
   */
  providers: readonly LoadedProvider[];
  /** Ready connectors by provider code (tests' fakes); one named like a factory's replaces it. Demo providers are built in. */
  connectors?: Record<string, Connector>;
}

export function build(deps: PaymentsDeps): ServicePart {
  const relay = createRelay(deps);
  const store = createStore(deps.pool);
  const { providerSecretKey: key, providerSecretKeyOther: otherKey } = deps.config;
  const paymentMethods = createPaymentMethodStore(deps.pool, createTokenBox(key, otherKey));
  const customerActions = createCustomerActions({ store, clock: deps.clock, relay });
  const credentials = createCredentialStore(deps.pool, key, otherKey);
  const network: ProviderNetwork = { allowlist: deps.config.providerBaseUrlAllowlist, logger: deps.logger };
  const providers = providersByCode(deps.providers);
  const vaults = createVaultForwarders(providers.values(), { credentials: credentials.source(), network });
  const made = Object.fromEntries([...providers.values()]
    .map((p) => [p.code, p.create({ credentials: credentials.source(), network, vaults })]));
  const licensed = { ...made, ...deps.connectors };
  const demoBehaviours = createDemoBehaviourStore(deps.pool, deps.clock);
  const connectors = instrumentConnectors(
    createConnectorRegistry(licensed, demoBehaviours.source), deps.metrics, Object.keys(licensed),
  );
  const idempotencyTtlMs = deps.config.idempotencyTtlHours * 3_600_000;
  // Vault connections forward only to providers whose connector takes forwarded card fields.
  const vaultOf = new Map([...providers.values()].flatMap((p) => (p.capabilities.vault ? [[p.code, p.capabilities.vault] as const] : [])));
  const forwardable = new Set([...providers.values()].filter((p) => p.capabilities.vaultForwarding).map((p) => p.code));
  const credentialSources: CredentialSources = {
    paymentMethods,
    issuerOf: issuerOfTokens([...providers.values()]),
    vaultIssuers: new Map([...providers.values()].flatMap((p) => {
      const { vault, vaultTokenIssuer } = p.capabilities;
      return vault && vaultTokenIssuer ? [[vault, vaultTokenIssuer] as const] : [];
    })),
    vaults: async (scope) => (await credentials.vaultDestinations(scope, vaultOf)).map((v) => ({
      vault: v.vault, accountId: v.accountId, destinations: v.destinations.filter((d) => forwardable.has(d)), feeFixed: 0n, feeBps: 0,
    })),
  };
  const orchestrator = createOrchestrator({
    ...credentialSources,
    paymentMethods,
    store,
    routing: deps.routing,
    connectors,
    clock: deps.clock,
    relay,
    providerTimeoutMs: deps.config.providerTimeoutMs,
    // Holding payment.created pays only when it then leaves with its outcome in one message.
    createdHoldMs: deps.config.outboxPack ? deps.config.paymentCreatedHoldMs : 0,
    customerActions: { ttlMinutes: deps.config.customerActionTtlMinutes, publicBaseUrl: deps.config.publicBaseUrl },
    idempotencyTtlMs,
    outcomes: paymentOutcomes(deps.metrics),
  });
  const lifecycle = createLifecycle({
    store, clock: deps.clock, relay, idempotencyTtlMs, connectors, providerTimeoutMs: deps.config.providerTimeoutMs,
  });
  const refunds = createRefunds({
    store,
    pool: deps.pool,
    connectors,
    clock: deps.clock,
    relay,
    logger: deps.logger,
    providerTimeoutMs: deps.config.providerTimeoutMs,
    idempotencyTtlMs,
    metrics: deps.metrics,
  });
  const lateCharges = createLateCharges({
    store, pool: deps.pool, connectors, clock: deps.clock, relay, logger: deps.logger, providerTimeoutMs: deps.config.providerTimeoutMs,
  });
  const disputes = createDisputeParts({
    pool: deps.pool, store, clock: deps.clock, relay, logger: deps.logger, intervalMs: SANDBOX_DISPUTE_SWEEP_MS,
    actions: providerDisputeActions({ connectors, providerCodes: Object.keys(licensed), timeoutMs: DISPUTE_ACTION_TIMEOUT_MS }),
  });
  const notifications = createReceiver({
    store, credentials, connectors, providers, refunds, lateCharges,
    disputes: disputeNotified({ store, disputes: disputes.store, apply: disputes.applyProviderView }),
    clock: deps.clock, relay, logger: deps.logger, pool: deps.pool,
  });
  const disputeSync = createDisputeSync({
    pool: deps.pool, connectors, providerCodes: Object.keys(licensed), take: notifications.take, logger: deps.logger,
    intervalMs: deps.config.disputeSyncIntervalMs, listTimeoutMs: SETTLEMENT_LIST_TIMEOUT_MS,
  });
  const followUps = createFollowUps(notifications, deps.logger);
  const expiry = createAuthorizationExpiry({
    store,
    clock: deps.clock,
    relay,
    logger: deps.logger,
    ttlHours: deps.config.authorizationTtlHours,
    intervalMs: deps.config.expirySweepMs,
  });
  const actionExpiry = createCustomerActionExpiry({
    store, clock: deps.clock, relay, logger: deps.logger, intervalMs: deps.config.expirySweepMs,
  });
  const reconciliation = createReconciliation({
    store, connectors, refunds, lateCharges, credentials: credentialSources, clock: deps.clock, relay, logger: deps.logger,
    intervalMs: deps.config.reconciliationSweepMs, providerTimeoutMs: deps.config.providerTimeoutMs,
  });
  const lookups = createSettlementLookups(deps.pool);
  warnRenamedVariables(deps.config, deps.logger);
  const settlementSync = deps.providerAccounts && deps.ledger && createSettlementSync({
    pool: deps.pool, connectors, providers: [...providers.values()], accounts: deps.providerAccounts, ledger: deps.ledger, lookups, clock: deps.clock,
    logger: deps.logger, intervalMs: deps.config.settlementSyncIntervalMs, listTimeoutMs: SETTLEMENT_LIST_TIMEOUT_MS,
  });
  const reminders = createDisputeReminders({
    pool: deps.pool, store, disputes: disputes.store, clock: deps.clock, relay, logger: deps.logger, intervalMs: DISPUTE_REMINDER_SWEEP_MS,
  });
  const bindings = bindingSweep(deps.pool, deps.clock, deps.logger);
  return assemblePart(deps, {
    name: PART.name,
    services: [
      PaymentsService.typeName, RefundsService.typeName, PaymentMethodsService.typeName, ProviderCredentialsService.typeName,
      ProviderNotificationsService.typeName, ProviderPayoutsService.typeName, ProviderSettlementsService.typeName,
      DemoBehaviourService.typeName, DisputesService.typeName, DisputeRemindersService.typeName,
    ],
    routes: (router) => {
      routes(orchestrator, lifecycle, customerActions)(router);
      refundRoutes(refunds)(router);
      paymentMethodRoutes(paymentMethods, deps.clock)(router);
      providerCredentialRoutes({
        store: credentials, connectors, providers, clock: deps.clock, logger: deps.logger, providerTimeoutMs: deps.config.providerTimeoutMs,
        baseUrlAllowlist: network.allowlist,
      })(router);
      providerNotificationRoutes(notifications)(router);
      demoBehaviourRoutes(demoBehaviours, deps.clock)(router);
      disputeRoutes(disputes.disputes)(router);
      disputeReminderRoutes(reminders)(router);
      providerSettlementRoutes({
        credentials, connectors, lookups, logger: deps.logger,
        listTimeoutMs: SETTLEMENT_LIST_TIMEOUT_MS,
      })(router);
      providerPayoutRoutes({
        credentials, connectors, logger: deps.logger, providerTimeoutMs: deps.config.providerTimeoutMs,
      })(router);
    },
    relay,
    async start() {
      // Before anything else: a dump taken after the upgrade (or the rotation) holds nothing readable
      // without the key in use (docs/operations.md, "Keys at rest").
      if (key) {
        const [tokens, accounts] = [await paymentMethods.sealStoredTokens(), await credentials.resealOtherKeys()];
        if (tokens + accounts > 0) deps.logger.info({ tokens, accounts }, 'secrets sealed under the PROVIDER_SECRET_KEY in use');
      } else {
        deps.logger.warn('PROVIDER_SECRET_KEY is not set: stored payment methods\' tokens are kept unencrypted (and no provider '
          + 'account can be connected). Set it (32 bytes, e.g. `openssl rand -hex 32`) in any deployment that is not a local trial.');
      }
      expiry.start();
      actionExpiry.start();
      reconciliation.start();
      settlementSync?.start();
      disputeSync.start();
      disputes.sandbox.start();
      reminders.start();
      bindings.start();
      followUps.start();
    },
    // Before the relay's final drain, so the events of a last sweep are published too.
    stop: async () => {
      await Promise.all([
        expiry.stop(), actionExpiry.stop(), reconciliation.stop(), settlementSync?.stop(), disputeSync.stop(), disputes.sandbox.stop(),
        reminders.stop(), bindings.stop(), followUps.stop(),
      ]);
    },
  });
}
