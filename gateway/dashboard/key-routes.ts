import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import type { ApiKeyView } from '../store/index.js';
import { accountHandlers } from '../management/accounts.js';
import { manageDepsFor, sessionOf, type DashboardDeps } from './context.js';
import { KeyBody } from './schemas.js';

// API keys of the session's project and mode, through the management API's own handlers (so live
// keys are refused before verification alike, and every change is audited, here as the user):
//   GET  /dashboard/api/keys              the mode's keys, never a secret
//   POST /dashboard/api/keys              {name}: 201 with the secret, the only time it is shown
//   POST /dashboard/api/keys/:id/revoke

export function keyRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const handlersFor = (request: Parameters<typeof sessionOf>[0]) => {
    const session = sessionOf(request);
    return { session, handlers: accountHandlers(manageDepsFor(deps, session)) };
  };
  const projectKeys = async (request: Parameters<typeof sessionOf>[0]) => {
    const { session, handlers } = handlersFor(request);
    const { data } = (await handlers.listKeys!({ params: { id: session.project.id }, query: {}, body: undefined })) as {
      data: ApiKeyView[];
    };
    return data;
  };

  scope.get('/keys', { config: { dashboard: { permission: 'view' } } }, async (request) => {
    const { mode } = sessionOf(request);
    return { data: (await projectKeys(request)).filter((k) => k.mode === mode) };
  });

  scope.post('/keys', { config: { dashboard: { permission: 'develop' } }, schema: { body: KeyBody } }, async (request, reply) => {
    const { session, handlers } = handlersFor(request);
    const { name } = request.body as { name: string };
    const created = await handlers.createKey!({ params: { id: session.project.id }, query: {}, body: { mode: session.mode, name } });
    return reply.code(201).send(created);
  });

  scope.post('/keys/:id/revoke', { config: { dashboard: { permission: 'develop' } } }, async (request) => {
    const { id } = request.params as { id: string };
    // The management call revokes any key by id: only one of this project's may be revoked here.
    if (!(await projectKeys(request)).some((k) => k.id === id)) {
      throw new DomainError('resource_not_found', `No API key ${id}`, { param: 'id' });
    }
    return handlersFor(request).handlers.revokeKey!({ params: { id }, query: {}, body: undefined });
  });
}
