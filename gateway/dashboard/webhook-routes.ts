import type { FastifyInstance } from 'fastify';
import type { ManageOperationId } from '../management/operations.js';
import { webhookHandlers } from '../management/webhooks.js';
import { manageDepsFor, sessionOf, type DashboardDeps } from './context.js';
import type { Permission } from './roles.js';
import { WebhookDeliveryQuery, WebhookEndpointBody, WebhookEndpointUpdateBody, WebhookRecoverBody } from './schemas.js';

// Webhook endpoints and deliveries of the session's project and mode, through the management API's
// handlers (gateway/management/webhooks.ts): the same calls to the webhooks part, the same JSON, and
// the signing secret only in the answers of create and rotate-secret. Paths mirror /manage/v1's
// without the project and mode, which are the session's. (A test event: POST /webhooks/test, api-mirror.ts.)

interface Route {
  method: 'GET' | 'POST';
  url: string;
  op: ManageOperationId;
  permission: Permission;
  status?: 201;
  body?: object;
  query?: object;
}

const NO_QUERY = { type: 'object', additionalProperties: false, properties: {} };
const endpoint = '/webhook-endpoints/:endpoint';
const delivery = '/webhook-deliveries/:delivery';
const ROUTES: Route[] = [
  { method: 'GET', url: '/webhook-endpoints', op: 'listWebhookEndpoints', permission: 'view' },
  { method: 'POST', url: '/webhook-endpoints', op: 'createWebhookEndpoint', permission: 'develop', status: 201, body: WebhookEndpointBody },
  { method: 'GET', url: endpoint, op: 'getWebhookEndpoint', permission: 'view' },
  { method: 'POST', url: endpoint, op: 'updateWebhookEndpoint', permission: 'develop', body: WebhookEndpointUpdateBody },
  { method: 'POST', url: `${endpoint}/disable`, op: 'disableWebhookEndpoint', permission: 'develop' },
  { method: 'POST', url: `${endpoint}/enable`, op: 'enableWebhookEndpoint', permission: 'develop' },
  { method: 'POST', url: `${endpoint}/rotate-secret`, op: 'rotateWebhookSecret', permission: 'develop' },
  { method: 'POST', url: `${endpoint}/recover`, op: 'recoverWebhookEndpoint', permission: 'develop', body: WebhookRecoverBody },
  { method: 'GET', url: '/webhook-deliveries', op: 'listWebhookDeliveries', permission: 'view', query: WebhookDeliveryQuery },
  { method: 'GET', url: delivery, op: 'getWebhookDelivery', permission: 'view' },
  { method: 'POST', url: `${delivery}/resend`, op: 'resendWebhookDelivery', permission: 'develop' },
];

export function webhookRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  for (const route of ROUTES) {
    scope.route({
      method: route.method,
      url: route.url,
      config: { dashboard: { permission: route.permission } },
      schema: {
        ...(route.body && { body: route.body }),
        // A query that names a mode is refused like any unknown parameter: the mode is the session's.
        querystring: route.query ?? NO_QUERY,
      },
      handler: async (request, reply) => {
        const session = sessionOf(request);
        const handler = webhookHandlers(manageDepsFor(deps, session))[route.op]!;
        const body = route.op === 'createWebhookEndpoint' ? { ...(request.body as object), mode: session.mode } : request.body;
        const result = await handler({
          params: { ...(request.params as object), id: session.project.id },
          query: { ...(request.query as object), mode: session.mode },
          body,
        });
        return reply.code(route.status ?? 200).send(result);
      },
    });
  }
}
