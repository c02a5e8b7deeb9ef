import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import type {
  Delivery, DeliveryAttempt, Endpoint, WebhooksService,
} from '../../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { DomainError, EVENT_TYPES, type Clock } from '../../services/shared/index.js';
import { decodeCursor, page } from '../http/cursor.js';
import type { GatewayStore } from '../store/index.js';

/**
 * Webhook endpoints and delivery history of a project and mode, kept by the webhooks part and
 * managed here over gRPC (the contract's "dashboard"):
 *   POST /manage/v1/projects/:id/webhook-endpoints                 {mode, url, events, description?}
 *   GET  /manage/v1/projects/:id/webhook-endpoints?mode=M
 *   GET  /manage/v1/projects/:id/webhook-endpoints/:endpoint?mode=M
 *   POST /manage/v1/projects/:id/webhook-endpoints/:endpoint?mode=M        {url?, events?, description?}
 *   POST /manage/v1/projects/:id/webhook-endpoints/:endpoint/{disable,enable,rotate-secret}?mode=M
 *   GET  /manage/v1/projects/:id/webhook-deliveries?mode=M[&endpoint_id&event_type&status&limit&cursor]
 *   GET  /manage/v1/projects/:id/webhook-deliveries/:delivery?mode=M       with attempts and body
 *   POST /manage/v1/projects/:id/webhook-deliveries/:delivery/resend?mode=M
 * The signing secret is in the answer of create and rotate-secret only, and never audited.
 */
export interface WebhookRouteDeps {
  webhooks?: Client<typeof WebhooksService>;
  store: GatewayStore;
}

type Mode = 'test' | 'live';

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);
const modeSchema = { type: 'string', enum: ['test', 'live'] } as const;
const modeQuery = { type: 'object', additionalProperties: false, required: ['mode'], properties: { mode: modeSchema } };
const eventsSchema = {
  type: 'array', minItems: 1, maxItems: EVENT_TYPES.length + 1, items: { type: 'string', minLength: 1, maxLength: 64 },
} as const;
const urlSchema = { type: 'string', minLength: 1, maxLength: 2048 } as const;
const descriptionSchema = { type: 'string', maxLength: 500 } as const;

export function endpointJson(e: Endpoint, projectId: string, mode: string) {
  return {
    id: e.id, object: 'webhook_endpoint', project_id: projectId, mode, url: e.url, events: e.events,
    status: e.enabled ? 'enabled' : 'disabled', description: e.description ?? null,
    created_at: iso(e.createdAt), updated_at: iso(e.updatedAt),
  };
}

export function deliveryJson(d: Delivery, mode: string) {
  return {
    id: d.id, object: 'webhook_delivery', mode, endpoint_id: d.endpointId, event_id: d.eventId, event_type: d.eventType,
    status: d.status, attempt_count: d.attemptCount, next_attempt_at: iso(d.nextAttemptAt),
    last_response_status: d.lastResponseStatus ?? null, last_error: d.lastError ?? null,
    created_at: iso(d.createdAt), updated_at: iso(d.updatedAt),
  };
}

export function attemptJson(a: DeliveryAttempt) {
  return {
    id: a.id, attempt_number: a.attemptNumber, manual: a.manual, started_at: iso(a.startedAt), duration_ms: a.durationMs,
    request_headers: Object.fromEntries(a.requestHeaders.map((h) => [h.name, h.value])),
    response_status: a.responseStatus ?? null, response_body: a.responseBody ?? null, error: a.error ?? null,
  };
}

export function webhookRoutes(scoped: FastifyInstance, deps: WebhookRouteDeps, clock: Clock, actor: string): void {
  const webhooks = () => {
    if (!deps.webhooks) throw new DomainError('service_unavailable', 'Webhooks need the webhooks part: set WEBHOOKS_URL on the gateway.');
    return deps.webhooks;
  };

  async function scopeOf(projectId: string, mode: Mode) {
    const merchantId = await deps.store.projectMerchant(projectId);
    if (!merchantId) throw new DomainError('resource_not_found', `No project ${projectId}`, { param: 'id' });
    return { merchantId, projectId, mode };
  }

  // After the webhooks part has answered, as for routing rules; the secret is left out.
  async function audit(action: string, scope: { merchantId: string; projectId: string }, targetId: string, data: object) {
    await deps.store.recordAudit(actor, action, clock.now(), {
      merchantId: scope.merchantId, projectId: scope.projectId, targetId, data: data as Record<string, unknown>,
    });
  }

  const base = '/projects/:id/webhook-endpoints';
  type EndpointParams = { Params: { id: string; endpoint: string }; Querystring: { mode: Mode } };

  scoped.post<{ Params: { id: string }; Body: { mode: Mode; url: string; events: string[]; description?: string } }>(base, {
    schema: {
      body: {
        type: 'object', additionalProperties: false, required: ['mode', 'url', 'events'],
        properties: { mode: modeSchema, url: urlSchema, events: eventsSchema, description: descriptionSchema },
      },
    },
  }, async (request, reply) => {
    const b = request.body;
    const scope = await scopeOf(request.params.id, b.mode);
    const res = await webhooks().createEndpoint({ scope, url: b.url, events: b.events, description: b.description });
    const json = endpointJson(res.endpoint!, scope.projectId, scope.mode);
    await audit('webhook_endpoint.created', scope, json.id, json);
    return reply.code(201).send({ ...json, secret: res.secret });
  });

  scoped.get<{ Params: { id: string }; Querystring: { mode: Mode } }>(base, { schema: { querystring: modeQuery } }, async (request) => {
    const scope = await scopeOf(request.params.id, request.query.mode);
    const { endpoints } = await webhooks().listEndpoints({ scope });
    return { data: endpoints.map((e) => endpointJson(e, scope.projectId, scope.mode)) };
  });

  scoped.get<EndpointParams>(`${base}/:endpoint`, { schema: { querystring: modeQuery } }, async (request) => {
    const scope = await scopeOf(request.params.id, request.query.mode);
    const { endpoint } = await webhooks().getEndpoint({ scope, id: request.params.endpoint });
    return endpointJson(endpoint!, scope.projectId, scope.mode);
  });

  scoped.post<EndpointParams & { Body: { url?: string; events?: string[]; description?: string } }>(`${base}/:endpoint`, {
    schema: {
      querystring: modeQuery,
      body: {
        type: 'object', additionalProperties: false, minProperties: 1,
        properties: { url: urlSchema, events: eventsSchema, description: descriptionSchema },
      },
    },
  }, async (request) => {
    const b = request.body;
    const scope = await scopeOf(request.params.id, request.query.mode);
    const { endpoint } = await webhooks().updateEndpoint({
      scope, id: request.params.endpoint, url: b.url, setEvents: b.events !== undefined, events: b.events ?? [],
      description: b.description,
    });
    const json = endpointJson(endpoint!, scope.projectId, scope.mode);
    await audit('webhook_endpoint.updated', scope, json.id, json);
    return json;
  });

  for (const [action, enabled] of [['disable', false], ['enable', true]] as const) {
    scoped.post<EndpointParams>(`${base}/:endpoint/${action}`, { schema: { querystring: modeQuery } }, async (request) => {
      const scope = await scopeOf(request.params.id, request.query.mode);
      const { endpoint } = await webhooks().setEndpointEnabled({ scope, id: request.params.endpoint, enabled });
      const json = endpointJson(endpoint!, scope.projectId, scope.mode);
      await audit(`webhook_endpoint.${action}d`, scope, json.id, json);
      return json;
    });
  }

  scoped.post<EndpointParams>(`${base}/:endpoint/rotate-secret`, { schema: { querystring: modeQuery } }, async (request) => {
    const scope = await scopeOf(request.params.id, request.query.mode);
    const res = await webhooks().rotateEndpointSecret({ scope, id: request.params.endpoint });
    const json = endpointJson(res.endpoint!, scope.projectId, scope.mode);
    await audit('webhook_endpoint.secret_rotated', scope, json.id, json);
    return { ...json, secret: res.secret };
  });

  const deliveries = '/projects/:id/webhook-deliveries';
  type DeliveryParams = { Params: { id: string; delivery: string }; Querystring: { mode: Mode } };

  scoped.get<{
    Params: { id: string };
    Querystring: { mode: Mode; endpoint_id?: string; event_type?: string; status?: string; limit: number; cursor?: string };
  }>(deliveries, {
    schema: {
      querystring: {
        type: 'object', additionalProperties: false, required: ['mode'],
        properties: {
          mode: modeSchema, endpoint_id: { type: 'string', minLength: 1 }, event_type: { type: 'string', minLength: 1 },
          status: { type: 'string', enum: ['pending', 'delivering', 'succeeded', 'failed', 'exhausted'] },
          limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 }, cursor: { type: 'string' },
        },
      },
    },
  }, async (request) => {
    const q = request.query;
    const scope = await scopeOf(request.params.id, q.mode);
    const res = await webhooks().listDeliveries({
      scope, endpointId: q.endpoint_id, eventType: q.event_type, status: q.status, limit: q.limit,
      startingAfter: q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'whd'),
    });
    return page(res.deliveries.map((d) => deliveryJson(d, scope.mode)), res.hasMore);
  });

  scoped.get<DeliveryParams>(`${deliveries}/:delivery`, { schema: { querystring: modeQuery } }, async (request) => {
    const scope = await scopeOf(request.params.id, request.query.mode);
    const res = await webhooks().getDelivery({ scope, id: request.params.delivery });
    return {
      ...deliveryJson(res.delivery!, scope.mode),
      // The exact bytes every attempt sends, parsed back for reading.
      event: JSON.parse(res.eventBody),
      attempts: res.attempts.map(attemptJson),
    };
  });

  scoped.post<DeliveryParams>(`${deliveries}/:delivery/resend`, { schema: { querystring: modeQuery } }, async (request) => {
    const scope = await scopeOf(request.params.id, request.query.mode);
    const res = await webhooks().resendDelivery({ scope, id: request.params.delivery });
    const json = { ...deliveryJson(res.delivery!, scope.mode), attempt: res.attempt ? attemptJson(res.attempt) : null };
    await audit('webhook_delivery.resent', scope, json.id, { event_id: json.event_id, attempt: json.attempt?.attempt_number });
    return json;
  });
}
