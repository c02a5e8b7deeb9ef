// payments: runs payment orchestration (PaymentsService). Owns schema payments; emits payment.* events.
import type { Client } from '@connectrpc/connect';
import { PaymentsService } from '../../proto/gen/svc/payments/v1/payments_pb.js';
import type { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { assemblePart, createRelay, type PartInfo, type ServiceDeps, type ServicePart } from '../shared/index.js';
import { createConnectorRegistry, type Connector } from './connectors/index.js';
import { createOrchestrator } from './orchestrator.js';
import { routes } from './service.js';
import { createStore } from './store.js';

export const PART: PartInfo = { name: 'payments', schema: 'payments', dir: 'services/payments' };

export interface PaymentsDeps extends ServiceDeps {
  routing: Client<typeof RoutingService>;
  /** Licensed provider connectors by provider code; demo providers are built in. */
  connectors?: Record<string, Connector>;
}

export function build(deps: PaymentsDeps): ServicePart {
  const relay = createRelay(deps);
  const orchestrator = createOrchestrator({
    store: createStore(deps.pool),
    routing: deps.routing,
    connectors: createConnectorRegistry(deps.connectors),
    clock: deps.clock,
    relay,
  });
  return assemblePart(deps, {
    name: PART.name,
    services: [PaymentsService.typeName],
    routes: routes(orchestrator),
    relay,
  });
}
