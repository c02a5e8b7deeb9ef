import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { providerAccountHandlers } from '../management/provider-accounts.js';
import { manageDepsFor, sessionOf, type DashboardDeps } from './context.js';
import { ProviderConnectBody } from './schemas.js';

// Provider accounts of the session's project and mode, through the management API's own handlers
// (so credentials are checked and stored by payments alike, and every change is audited as the user):
//   GET  /dashboard/api/provider-accounts                  the mode's accounts, never a credential
//   GET  /dashboard/api/provider-accounts/providers        what can be connected and the fields each takes
//   POST /dashboard/api/provider-accounts                  {provider, name, credentials, ...}: 201
//   POST /dashboard/api/provider-accounts/:id/test         ok, or the provider's refusal
//   POST /dashboard/api/provider-accounts/:id/{disable,enable}
// Connecting, disabling and enabling change where money goes, so they are the owner's; a developer
// may test an account (a harmless authenticated call), a read-only member sees the list.

type AccountJson = { id: string; project_id: string; mode: string };

export function providerRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const handlersFor = (request: FastifyRequest) => {
    const session = sessionOf(request);
    return { session, handlers: providerAccountHandlers(manageDepsFor(deps, session)) };
  };

  /** The management calls act on any account by id: only this project's, in this mode, may be touched here. */
  const ownAccount = async (request: FastifyRequest) => {
    const { session, handlers } = handlersFor(request);
    const { id } = request.params as { id: string };
    // An unknown id is routing-risk's 404; another project's (or mode's) account is the same 404 here.
    const account = (await handlers.getProviderAccount!({ params: { id }, query: {}, body: undefined })) as AccountJson;
    if (account.project_id !== session.project.id || account.mode !== session.mode) {
      throw new DomainError('resource_not_found', `No provider account ${id}`, { param: 'id' });
    }
    return { handlers, params: { id } };
  };

  scope.get('/provider-accounts', { config: { dashboard: { permission: 'view' } } }, async (request) => {
    const { session, handlers } = handlersFor(request);
    return handlers.listProviderAccounts!({ params: { id: session.project.id }, query: { mode: session.mode }, body: undefined });
  });

  scope.get('/provider-accounts/providers', { config: { dashboard: { permission: 'view' } } }, async () => {
    const { providers } = await deps.clients.providerCredentials.listCredentialFields({});
    return { data: providers.map((p) => ({ provider: p.providerCode, required: p.required, optional: p.optional })) };
  });

  scope.post('/provider-accounts', {
    config: { dashboard: { permission: 'administer' } }, schema: { body: ProviderConnectBody },
  }, async (request, reply) => {
    const { session, handlers } = handlersFor(request);
    const body = { ...(request.body as object), mode: session.mode };
    const created = await handlers.connectProviderAccount!({ params: { id: session.project.id }, query: {}, body });
    return reply.code(201).send(created);
  });

  scope.post('/provider-accounts/:id/test', { config: { dashboard: { permission: 'develop' } } }, async (request) => {
    const { handlers, params } = await ownAccount(request);
    return handlers.testProviderAccount!({ params, query: {}, body: undefined });
  });

  for (const action of ['disable', 'enable'] as const) {
    scope.post(`/provider-accounts/:id/${action}`, { config: { dashboard: { permission: 'administer' } } }, async (request) => {
      const { handlers, params } = await ownAccount(request);
      const handler = action === 'disable' ? handlers.disableProviderAccount! : handlers.enableProviderAccount!;
      return handler({ params, query: {}, body: undefined });
    });
  }
}
