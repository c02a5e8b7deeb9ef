import { timestampDate, timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { DomainError } from '../../services/contract/index.js';
import type { Delivery, DeliveryAttempt, Endpoint } from '../../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { decodeCursor, page } from '../http/cursor.js';
import type { Mode } from '../store/index.js';
import { audit, projectScope, type ManageDeps, type ManageHandlers } from './context.js';

// Webhook endpoints and delivery history of a project and mode, kept by the webhooks part and
// managed here over gRPC (the contract's "dashboard"):
//   POST /manage/v1/projects/:id/webhook-endpoints                 {mode, url, events, description?}
//   GET  /manage/v1/projects/:id/webhook-endpoints?mode=M
//   GET  /manage/v1/projects/:id/webhook-endpoints/:endpoint?mode=M
//   POST /manage/v1/projects/:id/webhook-endpoints/:endpoint?mode=M        {url?, events?, description?}
//   POST /manage/v1/projects/:id/webhook-endpoints/:endpoint/{disable,enable,rotate-secret}?mode=M
//   POST /manage/v1/projects/:id/webhook-endpoints/:endpoint/recover?mode=M    {since}: resend what failed since
//        (one recovery per endpoint at a time: a call while one runs answers it, joined; 409 when disabled)
//   GET  /manage/v1/projects/:id/webhook-deliveries?mode=M[&endpoint_id&event_type&status&limit&cursor]
//   GET  /manage/v1/projects/:id/webhook-deliveries/:delivery?mode=M       with attempts and body
//   POST /manage/v1/projects/:id/webhook-deliveries/:delivery/resend?mode=M
// The signing secret is in the answer of create and rotate-secret only, and never audited.

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

export function endpointJson(e: Endpoint, projectId: string, mode: string) {
  const h = e.health;
  return {
    id: e.id, object: 'webhook_endpoint', project_id: projectId, mode, url: e.url, events: e.events,
    status: e.enabled ? 'enabled' : 'disabled', description: e.description ?? null,
    created_at: iso(e.createdAt), updated_at: iso(e.updatedAt),
    max_deliveries_per_second: e.maxPerSecond ?? null,
    // Why and since when it is disabled: `manual`, or `failing` (every attempt failed for WEBHOOK_DISABLE_AFTER_HOURS).
    disabled_reason: e.disabledReason ?? null, disabled_at: iso(e.disabledAt),
    failing_since: iso(e.failingSince), retry_after_until: iso(e.retryAfterUntil),
    // Attempts of the last 24 hours (success_rate null without any), unfinished deliveries and the earliest next attempt.
    ...(h && {
      health: {
        attempts_24h: h.attempts24h, succeeded_24h: h.succeeded24h,
        success_rate_24h: h.attempts24h === 0 ? null : Math.round((h.succeeded24h / h.attempts24h) * 1000) / 1000,
        pending_deliveries: h.pending, next_retry_at: iso(h.nextRetryAt),
      },
    }),
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

type ProjectParams = { id: string };
type EndpointParams = { id: string; endpoint: string };
type DeliveryParams = { id: string; delivery: string };
interface DeliveryQuery {
  mode: Mode; endpoint_id?: string; event_type?: string; status?: string; limit: number; cursor?: string;
}

export function webhookHandlers(deps: ManageDeps): ManageHandlers {
  const { store, clients: { webhooks } } = deps;
  const modeOf = (request: { query: unknown }) => (request.query as { mode: Mode }).mode;
  // Recorded after the webhooks part has answered (context.ts); the secret is never in the record.
  const recorded = (action: string, scope: { merchantId: string; projectId: string }, targetId: string, data: object) =>
    audit(deps, action, {
      merchantId: scope.merchantId, projectId: scope.projectId, targetId, data: data as Record<string, unknown>,
    });

  /** disable and enable differ only in the flag and the audit action. */
  const setEnabled = (enabled: boolean) => async (request: { params: unknown; query: unknown }) => {
    const params = request.params as EndpointParams;
    const scope = await projectScope(store, params.id, modeOf(request));
    const { endpoint } = await webhooks.setEndpointEnabled({ scope, id: params.endpoint, enabled });
    const json = endpointJson(endpoint!, scope.projectId, scope.mode);
    await recorded(`webhook_endpoint.${enabled ? 'enable' : 'disable'}d`, scope, json.id, json);
    return json;
  };

  return {
    async createWebhookEndpoint(request) {
      const b = request.body as { mode: Mode; url: string; events: string[]; description?: string; max_deliveries_per_second?: number };
      const scope = await projectScope(store, (request.params as ProjectParams).id, b.mode);
      const res = await webhooks.createEndpoint({
        scope, url: b.url, events: b.events, description: b.description, maxPerSecond: b.max_deliveries_per_second,
      });
      const json = endpointJson(res.endpoint!, scope.projectId, scope.mode);
      await recorded('webhook_endpoint.created', scope, json.id, json);
      return { ...json, secret: res.secret };
    },

    async listWebhookEndpoints(request) {
      const scope = await projectScope(store, (request.params as ProjectParams).id, modeOf(request));
      const { endpoints } = await webhooks.listEndpoints({ scope });
      return { data: endpoints.map((e) => endpointJson(e, scope.projectId, scope.mode)) };
    },

    async getWebhookEndpoint(request) {
      const params = request.params as EndpointParams;
      const scope = await projectScope(store, params.id, modeOf(request));
      const { endpoint } = await webhooks.getEndpoint({ scope, id: params.endpoint });
      return endpointJson(endpoint!, scope.projectId, scope.mode);
    },

    async updateWebhookEndpoint(request) {
      const params = request.params as EndpointParams;
      const b = request.body as { url?: string; events?: string[]; description?: string; max_deliveries_per_second?: number };
      const scope = await projectScope(store, params.id, modeOf(request));
      const { endpoint } = await webhooks.updateEndpoint({
        scope, id: params.endpoint, url: b.url, setEvents: b.events !== undefined, events: b.events ?? [],
        description: b.description, maxPerSecond: b.max_deliveries_per_second,
      });
      const json = endpointJson(endpoint!, scope.projectId, scope.mode);
      await recorded('webhook_endpoint.updated', scope, json.id, json);
      return json;
    },

    disableWebhookEndpoint: setEnabled(false),
    enableWebhookEndpoint: setEnabled(true),

    async rotateWebhookSecret(request) {
      const params = request.params as EndpointParams;
      const scope = await projectScope(store, params.id, modeOf(request));
      const res = await webhooks.rotateEndpointSecret({ scope, id: params.endpoint });
      const json = endpointJson(res.endpoint!, scope.projectId, scope.mode);
      await recorded('webhook_endpoint.secret_rotated', scope, json.id, json);
      return { ...json, secret: res.secret };
    },

    async recoverWebhookEndpoint(request) {
      const params = request.params as EndpointParams;
      const scope = await projectScope(store, params.id, modeOf(request));
      const since = new Date((request.body as { since: string }).since);
      if (Number.isNaN(since.getTime())) {
        throw new DomainError('validation_error', 'since must be a time such as 2026-11-20T10:00:00Z', { param: 'since' });
      }
      const res = await webhooks.recoverEndpoint({ scope, endpointId: params.endpoint, since: timestampFromDate(since) });
      // `joined`: one was already running, this call started nothing and shows that one (its own since).
      const json = {
        object: 'webhook_recovery', endpoint_id: params.endpoint, status: res.running ? 'running' : 'finished', joined: res.joined,
        since: iso(res.since), started_at: iso(res.startedAt), deliveries: res.deliveries, resent: res.resent,
      };
      if (!res.joined) await recorded('webhook_endpoint.recovered', scope, params.endpoint, json);
      return json;
    },

    async listWebhookDeliveries(request) {
      const q = request.query as DeliveryQuery;
      const scope = await projectScope(store, (request.params as ProjectParams).id, q.mode);
      const res = await webhooks.listDeliveries({
        scope, endpointId: q.endpoint_id, eventType: q.event_type, status: q.status, limit: q.limit,
        startingAfter: q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'whd'),
      });
      return page(res.deliveries.map((d) => deliveryJson(d, scope.mode)), res.hasMore);
    },

    async getWebhookDelivery(request) {
      const params = request.params as DeliveryParams;
      const scope = await projectScope(store, params.id, modeOf(request));
      const res = await webhooks.getDelivery({ scope, id: params.delivery });
      return {
        ...deliveryJson(res.delivery!, scope.mode),
        // The exact bytes every attempt sends, parsed back for reading.
        event: JSON.parse(res.eventBody),
        attempts: res.attempts.map(attemptJson),
      };
    },

    async resendWebhookDelivery(request) {
      const params = request.params as DeliveryParams;
      const scope = await projectScope(store, params.id, modeOf(request));
      const res = await webhooks.resendDelivery({ scope, id: params.delivery });
      const json = { ...deliveryJson(res.delivery!, scope.mode), attempt: res.attempt ? attemptJson(res.attempt) : null };
      await recorded('webhook_delivery.resent', scope, json.id, { event_id: json.event_id, attempt: json.attempt?.attempt_number });
      return json;
    },
  };
}
