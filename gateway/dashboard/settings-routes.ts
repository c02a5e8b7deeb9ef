import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { allowlistHandlers } from '../management/allowlist.js';
import { verificationStatus, type VerificationDetails } from '../store/index.js';
import { manageDepsFor, sessionOf, type DashboardDeps } from './context.js';
import { AllowlistBody, VerificationBody } from './schemas.js';
import { checkAllowlist, humanEntries } from './allowlist-check.js';

// The project's settings and the merchant's verification:
//   GET  /dashboard/api/allowlist        {project_id, entries}
//   PUT  /dashboard/api/allowlist        {entries}: replaces the list ([] lifts it), as the management API does
//   POST /dashboard/api/allowlist/check  {entries}: {entries, client_address, client_allowed}, saving nothing,
//                                        so the page can warn before a list shuts out the member's own address
//   GET  /dashboard/api/verification     the latest submission, or {status: 'not_submitted'}
//   POST /dashboard/api/verification     {company_name, registration_number, country, documents}: 201 pending
// Approval or rejection stays with the deployment's operators (the operator console,
// operator-console-routes.ts, or POST /manage/v1/merchants/:id/verify and /reject).

export function settingsRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const allowlist = (request: Parameters<typeof sessionOf>[0]) => {
    const session = sessionOf(request);
    return { session, handlers: allowlistHandlers(manageDepsFor(deps, session)) };
  };

  scope.get('/allowlist', { config: { dashboard: { permission: 'view' } } }, async (request) => {
    const { session, handlers } = allowlist(request);
    const list = await handlers.getAllowlist!({ params: { id: session.project.id }, query: {}, body: undefined });
    return { ...(list as object), client_address: checkAllowlist(request, deps, []).client_address };
  });

  scope.post('/allowlist/check', { config: { dashboard: { permission: 'develop' } }, schema: { body: AllowlistBody } }, async (request) =>
    checkAllowlist(request, deps, (request.body as { entries: unknown }).entries));

  scope.put('/allowlist', { config: { dashboard: { permission: 'develop' } }, schema: { body: AllowlistBody } }, async (request) => {
    const { session, handlers } = allowlist(request);
    const entries = humanEntries((request.body as { entries: unknown }).entries);
    return handlers.setAllowlist!({ params: { id: session.project.id }, query: {}, body: { entries } });
  });

  scope.get('/verification', { config: { dashboard: { permission: 'view' } } }, async (request) => {
    const session = sessionOf(request);
    const latest = await deps.store.latestVerification(session.merchant.id);
    if (latest) return latest;
    return { object: 'verification', status: verificationStatus(session.merchant.verificationStatus, null) };
  });

  scope.post('/verification', {
    config: { dashboard: { permission: 'administer' } }, schema: { body: VerificationBody },
  }, async (request, reply) => {
    const session = sessionOf(request);
    const body = request.body as VerificationDetails;
    const details = { ...body, country: body.country.toUpperCase() };
    const result = await deps.store.submitVerification(session.merchant.id, session.user.id, details, deps.clock.now());
    if ('refused' in result) {
      throw new DomainError('invalid_state_transition', 'The business is already verified; live mode is open.');
    }
    return reply.code(201).send(result.verification);
  });
}
