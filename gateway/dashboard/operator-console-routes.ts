import type { FastifyInstance } from 'fastify';
import { accountHandlers } from '../management/accounts.js';
import type { DashboardDeps } from './context.js';
import { AuditLogQuery, OperatorMerchantsQuery, OperatorVerificationsQuery, RejectBody } from './schemas.js';

// The operator console's pages, for an operator's session (operator-session.ts):
//   GET  /dashboard/api/operator/merchants                 newest first, with verification status
//   GET  /dashboard/api/operator/verifications?status=     pending by default: the queue, oldest first
//   POST /dashboard/api/operator/merchants/:id/verify      approves (as POST /manage/v1/merchants/:id/verify)
//   POST /dashboard/api/operator/merchants/:id/reject      {reason} (as POST /manage/v1/merchants/:id/reject)
//   GET  /dashboard/api/operator/audit-log                 ?merchant_id&action&before&limit, newest first
// Decisions go through the management API's handlers, audited as the operator with the address.

const DEFAULT_LIMIT = 50;

/** A page of rows whose cursor is the last id, when the page is full. */
const page = <T extends { id: string }>(data: T[], limit: number) => ({
  data, next_cursor: data.length === limit ? data[data.length - 1].id : null,
});

export function operatorConsoleRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { store } = deps;
  const operator = { dashboard: { operator: true as const } };
  const handlers = accountHandlers({ store, clock: deps.clock, clients: deps.clients });

  scope.get('/operator/merchants', { config: operator, schema: { querystring: OperatorMerchantsQuery } }, async (request) => {
    const q = request.query as { limit?: number; before?: string };
    const limit = q.limit ?? DEFAULT_LIMIT;
    return page(await store.operatorMerchants(limit, q.before), limit);
  });

  scope.get('/operator/verifications', { config: operator, schema: { querystring: OperatorVerificationsQuery } }, async (request) => {
    const q = request.query as { status?: string; limit?: number };
    return { data: await store.verificationQueue(q.status ?? 'pending', q.limit ?? DEFAULT_LIMIT) };
  });

  scope.post('/operator/merchants/:id/verify', { config: operator }, async (request) =>
    handlers.verifyMerchant!({ params: request.params, query: {}, body: undefined }));

  scope.post('/operator/merchants/:id/reject', { config: operator, schema: { body: RejectBody } }, async (request) =>
    handlers.rejectMerchant!({ params: request.params, query: {}, body: request.body }));

  scope.get('/operator/audit-log', { config: operator, schema: { querystring: AuditLogQuery } }, async (request) => {
    const q = request.query as { merchant_id?: string; action?: string; before?: string; limit?: number };
    const limit = q.limit ?? DEFAULT_LIMIT;
    return page(await store.auditLog({ merchantId: q.merchant_id, action: q.action, before: q.before }, limit), limit);
  });
}
