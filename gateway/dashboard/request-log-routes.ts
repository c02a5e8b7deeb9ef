import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { REQUEST_LOG_KEEP } from '../store/index.js';
import { sessionOf, type DashboardDeps } from './context.js';

// The request log of the session's project and mode (gateway/edge/request-log.ts writes it):
//   GET /dashboard/api/request-log?limit=        newest first; limit 1–1000, default 100
//   GET /dashboard/api/request-log/:request_id   one call, with the error a failed call answered

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

  scope.get('/request-log/:request_id', {
    config: { dashboard: { permission: 'view' } },
    schema: {
      params: {
        type: 'object', required: ['request_id'],
        properties: { request_id: { type: 'string', minLength: 1, maxLength: 100 } },
      },
    },
  }, async (request) => {
    const session = sessionOf(request);
    const { request_id: id } = request.params as { request_id: string };
    const entry = await deps.store.getRequest(session.project.id, session.mode, id);
    if (!entry) {
      throw new DomainError('resource_not_found', `No request ${id} in the ${session.mode} request log (it keeps the newest ${REQUEST_LOG_KEEP} calls)`, { param: 'request_id' });
    }
    return entry;
  });
}
