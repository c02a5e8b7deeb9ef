import type { FastifyInstance } from 'fastify';
import { REQUEST_LOG_KEEP } from '../store/index.js';
import { sessionOf, type DashboardDeps } from './context.js';

// The request log of the session's project and mode (gateway/edge/request-log.ts writes it):
//   GET /dashboard/api/request-log?limit=   newest first; limit 1–1000, default 100

export function requestLogRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  scope.get('/request-log', {
    config: { dashboard: { permission: 'view' } },
    schema: {
      querystring: {
        type: 'object', additionalProperties: false,
        properties: { limit: { type: 'integer', minimum: 1, maximum: REQUEST_LOG_KEEP, default: 100 } },
      },
    },
  }, async (request) => {
    const session = sessionOf(request);
    const { limit } = request.query as { limit: number };
    return { data: await deps.store.listRequests(session.project.id, session.mode, limit) };
  });
}
