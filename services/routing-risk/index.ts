// routing-risk: scores risk and plans routes (RoutingService). Owns schema routing_risk.
import { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import { assemblePart, type PartInfo, type ServiceDeps, type ServicePart } from '../shared/index.js';
import { routes } from './service.js';
import { createStore } from './store.js';

export const PART: PartInfo = { name: 'routing-risk', schema: 'routing_risk', dir: 'services/routing-risk' };

export function build(deps: ServiceDeps): ServicePart {
  return assemblePart(deps, {
    name: PART.name,
    services: [RoutingService.typeName],
    routes: (router) => routes(createStore(deps.pool), deps.clock)(router),
  });
}
