// routing-risk: scores risk and plans routes (RoutingService), and keeps the provider accounts
// projects connect (ProviderAccountsService), and records attempt outcomes from the internal
// attempt.settled events (outcome-consumer.ts) into the windows routing learns from (strategies/,
// outcome-minute-retention.ts). Keeps scopes' accounts and rules and closed outcome buckets in
// process for planning (planning-cache.ts), dropped on migration 0011's notifications
// (planning-listener.ts). Owns schema routing_risk. Also offers the routing simulator (simulator/):
// the same planner and strategies over a synthetic day, offline, for the bench and the CLI.
import { ProviderAccountsService } from '../../proto/gen/svc/routing/v1/provider_accounts_pb.js';
import { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import type { Subscription } from '../platform/bus/index.js';
import { assemblePart, type ServiceDeps, type ServicePart } from '../platform/part.js';
import type { PartInfo } from '../platform/standalone.js';
import type { ProviderFacts } from '../contract/provider-facts.js';
import { decisionWriter } from './decision-writer.js';
import { consumeAttemptOutcomes } from './outcome-consumer.js';
import { outcomeMinutePruning } from './outcome-minute-retention.js';
import { createPlanningCache } from './planning-cache.js';
import { planningListener } from './planning-listener.js';
import { upsertProviders } from './provider-catalogue.js';
import { createProviderAccountStore } from './provider-account-store.js';
import { providerAccountRoutes } from './provider-accounts-service.js';
import { routes } from './service.js';
import { createStore } from './store.js';

export {
  DEFAULT_PAYMENTS, simulateRouting, simulationReport, type SimResult, type Simulation, type SimulationOptions,
} from './simulator/index.js';

export const PART: PartInfo = { name: 'routing-risk', schema: 'routing_risk', dir: 'services/routing-risk' };

export interface RoutingRiskDeps extends ServiceDeps {
  /**
   * The licensed providers' facts (payments' PROVIDERS, handed in by the entry point): their
   * providers rows are written at start (provider-catalogue.ts).
   */
  providers?: readonly ProviderFacts[];
}

export function build(deps: RoutingRiskDeps): ServicePart {
  let outcomes: Subscription | undefined;
  const pruning = outcomeMinutePruning(deps.pool, deps.clock, deps.logger);
  // Off until the listener listens (start), so a part built and not started reads every plan's inputs.
  const cache = createPlanningCache();
  const listener = planningListener(deps.pool, cache, deps.logger);
  const store = createStore(deps.pool, cache);
  const decisions = decisionWriter(store, deps.logger, deps.config.routingDecisionWriteTestDelayMs);
  return assemblePart(deps, {
    name: PART.name,
    services: [RoutingService.typeName, ProviderAccountsService.typeName],
    routes: (router) => {
      const vaultOf = new Map((deps.providers ?? []).flatMap((p) => (p.capabilities.vault ? [[p.code, p.capabilities.vault] as const] : [])));
      routes(store, deps.clock, vaultOf, deps.metrics, decisions)(router);
      providerAccountRoutes(createProviderAccountStore(deps.pool, cache), deps.clock)(router);
    },
    async start() {
      await upsertProviders(deps.pool, deps.providers ?? []);
      await listener.start();
      outcomes = await consumeAttemptOutcomes(deps);
      pruning.start();
    },
    async stop() {
      await pruning.stop();
      await outcomes?.stop();
      await listener.stop();
      await decisions.flush();
    },
  });
}
