import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../services/contract/index.js';
import { OPERATIONS, type OperationId } from '../../services/contract/operations.js';
import { apiHandlers } from '../api/scope.js';
import type { Identity } from '../store/index.js';
import { sessionOf, type DashboardDeps } from './context.js';
import type { Permission } from './roles.js';
import type { SessionContext } from '../store/index.js';

// /v1 operations the dashboard offers for its session's merchant, project and mode, answered by the
// /v1 handlers themselves (same schemas, same part calls, same JSON): /v1/payments/:id becomes
// /dashboard/api/payments/:id. Capture, cancel and refund take an Idempotency-Key header, which the
// part binds to the resource as for /v1 (a double click moves no money twice). Disputes: accepting,
// evidence and documents are `operate`, like a refund. Creating a payment is the "test payment" form:
// test mode only (live payments come from the merchant's integration), with an Idempotency-Key too.

const MIRRORED: Partial<Record<OperationId, Permission>> = {
  createPayment: 'operate',
  listTestScenarios: 'view',
  listPayments: 'view',
  getPayment: 'view',
  getPaymentTimeline: 'view',
  listPaymentRefunds: 'view',
  getRefund: 'view',
  capturePayment: 'operate',
  cancelPayment: 'operate',
  refundPayment: 'operate',
  listPayouts: 'view',
  getPayout: 'view',
  listTransactions: 'view',
  getBalances: 'view',
  listSettlements: 'view',
  getSettlement: 'view',
  sendTestWebhook: 'develop',
  listEvents: 'view',
  getEvent: 'view',
  listPaymentMethodCredentials: 'view',
  addPaymentMethodCredential: 'operate',
  removePaymentMethodCredential: 'operate',
  listDisputes: 'view',
  getDispute: 'view',
  acceptDispute: 'operate',
  submitDisputeEvidence: 'operate',
  uploadDisputeDocument: 'operate',
};

/** Operations the dashboard offers in test mode only. */
const TEST_MODE_ONLY: ReadonlySet<OperationId> = new Set(['createPayment']);

/**
 * The identity a /v1 handler is called with: the session's scope. The handlers mirrored read only
 * merchant, project and mode; the API-key fields name the session, and the project's IP allow-list
 * is left out, as it restricts API keys, not people signed in (docs/decisions.md).
 */
export function sessionIdentity(session: SessionContext): Identity {
  return {
    merchant: { id: session.merchant.id, name: session.merchant.name },
    project: { id: session.project.id, name: session.project.name, ipAllowlist: [] },
    mode: session.mode,
    apiKey: { id: session.id, prefix: '', name: 'dashboard session', rateLimitPerMinute: null },
  };
}

export function mirroredRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const handlers = apiHandlers(deps.clients);
  for (const op of OPERATIONS) {
    const permission = MIRRORED[op.id];
    if (!permission) continue;
    const handler = handlers[op.id]!;
    scope.route({
      method: op.method,
      url: op.path.slice('/v1'.length),
      config: { dashboard: { permission }, idempotent: op.idempotent === true, operationId: op.id },
      // The one route with a larger body (a dispute's document) keeps its own limit here too.
      ...(op.bodyLimit && { bodyLimit: op.bodyLimit }),
      schema: {
        ...(op.body && { body: op.body }),
        ...(op.query && { querystring: op.query }),
        ...(op.params && { params: op.params }),
      },
      preValidation: async (request) => {
        if (TEST_MODE_ONLY.has(op.id) && sessionOf(request).mode !== 'test') {
          throw new DomainError('forbidden', 'The dashboard makes test payments only; live payments come from your integration with a live API key.');
        }
        if (op.body && op.bodyOptional && request.body === undefined) request.body = {};
      },
      handler: (request, reply) => handler(request, reply, sessionIdentity(sessionOf(request))),
    });
  }
}
