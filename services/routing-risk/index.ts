// routing-risk: scores risk and plans routes (RiskService, RoutingService). Owns schema routing_risk.
import { RiskService } from '../../proto/gen/svc/risk/v1/risk_pb.js';
import { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { assemblePart, type PartInfo, type ServiceDeps, type ServicePart } from '../shared/index.js';
import { payoutRoutingRoutes } from './payout-routing.js';
import { routes } from './service.js';
import { createStore } from './store.js';

export const PART: PartInfo = { name: 'routing-risk', schema: 'routing_risk', dir: 'services/routing-risk' };

export function build(deps: ServiceDeps): ServicePart {
  return assemblePart(deps, {
    name: PART.name,
    services: [RoutingService.typeName, RiskService.typeName],
    routes: (router) => {
      const store = createStore(deps.pool);
      routes(store, deps.clock)(router);
      // Registered after RoutingService's other methods, so it replaces their unimplemented stub.
      payoutRoutingRoutes(store)(router);
    },
  });
}
