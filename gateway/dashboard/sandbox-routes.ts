import type { FastifyInstance } from 'fastify';
import { demoBehaviourHandlers } from '../management/demo-behaviour.js';
import { DemoBehaviourBody, DemoBehaviourClearQuery } from '../management/schemas.js';
import { manageDepsFor, sessionOf, type DashboardDeps } from './context.js';
import { withoutMode } from './schemas.js';

// The sandbox's demo behaviour of the session's project, by the management API's handlers (payments
// checks every value; live mode is refused there, 422 on mode):
//   GET    /dashboard/api/demo-behaviour             {object: 'list', data}
//   PUT    /dashboard/api/demo-behaviour             one segment: {provider, payment_method, currency, country?, ...}
//   DELETE /dashboard/api/demo-behaviour?provider=…  the segments matching the query (all without)

export function sandboxRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const handlers = (request: Parameters<typeof sessionOf>[0]) => {
    const session = sessionOf(request);
    return { session, handlers: demoBehaviourHandlers(manageDepsFor(deps, session)) };
  };

  scope.get('/demo-behaviour', { config: { dashboard: { permission: 'view' } } }, async (request) => {
    const { session, handlers: h } = handlers(request);
    return h.getDemoBehaviour!({ params: { id: session.project.id }, query: { mode: session.mode }, body: undefined });
  });

  scope.put('/demo-behaviour', {
    config: { dashboard: { permission: 'develop' } }, schema: { body: withoutMode(DemoBehaviourBody) },
  }, async (request) => {
    const { session, handlers: h } = handlers(request);
    return h.setDemoBehaviour!({
      params: { id: session.project.id }, query: {}, body: { ...(request.body as object), mode: session.mode },
    });
  });

  scope.delete('/demo-behaviour', {
    config: { dashboard: { permission: 'develop' } }, schema: { querystring: withoutMode(DemoBehaviourClearQuery) },
  }, async (request) => {
    const { session, handlers: h } = handlers(request);
    return h.clearDemoBehaviour!({
      params: { id: session.project.id }, query: { ...(request.query as object), mode: session.mode }, body: undefined,
    });
  });
}
