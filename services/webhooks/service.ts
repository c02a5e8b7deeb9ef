import type { ConnectRouter } from '@connectrpc/connect';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import { WebhooksService } from '../../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { isOneOf } from '../contract/enums.js';
import type { Clock } from '../platform/clock.js';
import type { Pool } from '../platform/db.js';
import { pageLimit, requireScope } from '../platform/request-guards.js';
import { EVENT_TYPES, invalidField, serviceError } from '../contract/index.js';
import { DELIVERY_STATUSES, type AttemptRow, type DeliveryRow, type DeliveryStore } from './deliveries.js';
import { PACE_HORIZON_MS, type Dispatcher } from './dispatcher.js';
import { hostOf } from './host-pacer.js';
import type { EndpointHealth, EndpointRow, EndpointStore } from './endpoints.js';
import type { Recovery } from './recovery.js';
import { listEventsAfter } from './event-stream.js';
import type { EventsReader } from './events-api.js';
import { storeEvent } from './fan-out.js';
import { testEvent } from './test-events.js';
import { timelineEntry } from './timeline.js';

export interface WebhooksServiceDeps {
  pool: Pool;
  endpoints: EndpointStore;
  deliveries: DeliveryStore;
  dispatcher: Dispatcher;
  events: EventsReader;
  recovery: Recovery;
  clock: Clock;
}


const ts = (d: Date | null | undefined) => (d ? timestampFromDate(d) : undefined);
const opt = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

function endpointProto(e: EndpointRow, health?: EndpointHealth) {
  return {
    id: e.id, url: e.url, events: e.events, enabled: e.enabled, description: opt(e.description),
    createdAt: ts(e.created_at), updatedAt: ts(e.updated_at), maxPerSecond: opt(e.max_per_second),
    disabledReason: opt(e.disabled_reason), disabledAt: ts(e.disabled_at), failingSince: ts(e.failing_since),
    retryAfterUntil: ts(e.retry_after_until),
    health: health && {
      attempts24h: health.attempts, succeeded24h: health.succeeded, pending: health.pending, nextRetryAt: ts(health.nextRetryAt),
    },
  };
}

/** How many notices one TakeEndpointNotices hands out at most. */
const NOTICES_AT_ONCE = 100;

function deliveryProto(d: DeliveryRow) {
  return {
    id: d.id, endpointId: d.endpoint_id, eventId: d.event_id, eventType: d.event_type, status: d.status,
    attemptCount: d.attempt_count, nextAttemptAt: ts(d.next_attempt_at), lastResponseStatus: opt(d.last_response_status),
    lastError: opt(d.last_error), createdAt: ts(d.created_at), updatedAt: ts(d.updated_at),
  };
}

function attemptProto(a: AttemptRow) {
  return {
    id: a.id, attemptNumber: a.attempt_number, startedAt: ts(a.started_at), durationMs: a.duration_ms,
    requestHeaders: a.request_headers.map(([name, value]) => ({ name, value })),
    responseStatus: opt(a.response_status), responseBody: opt(a.response_body), error: opt(a.error), manual: a.manual,
  };
}

export function webhooksRoutes(deps: WebhooksServiceDeps) {
  const { endpoints, deliveries, clock } = deps;
  const notFound = (id: string) => serviceError('resource_not_found', `No webhook delivery ${id}`, { param: 'id' });

  return (router: ConnectRouter) => {
    router.service(WebhooksService, {
      async createEndpoint(req) {
        const scope = requireScope(req.scope);
        const { endpoint, secret } = await endpoints.create(
          scope, { url: req.url, events: req.events, description: req.description, maxPerSecond: req.maxPerSecond }, clock.now());
        return { endpoint: endpointProto(endpoint), secret };
      },
      async listEndpoints(req) {
        const list = await endpoints.list(requireScope(req.scope));
        const health = await endpoints.health(list.map((e) => e.id), clock.now());
        return { endpoints: list.map((e) => endpointProto(e, health.get(e.id))) };
      },
      async getEndpoint(req) {
        const endpoint = await endpoints.get(requireScope(req.scope), req.id);
        const health = await endpoints.health([endpoint.id], clock.now());
        return { endpoint: endpointProto(endpoint, health.get(endpoint.id)) };
      },
      async updateEndpoint(req) {
        const changes = {
          url: req.url, events: req.setEvents ? req.events : undefined, description: req.description, maxPerSecond: req.maxPerSecond,
        };
        return { endpoint: endpointProto(await endpoints.update(requireScope(req.scope), req.id, changes, clock.now())) };
      },
      async setEndpointEnabled(req) {
        const endpoint = await endpoints.setEnabled(requireScope(req.scope), req.id, req.enabled, clock.now());
        // Deliveries held back while it was disabled are due now.
        if (req.enabled) deps.dispatcher.kick();
        return { endpoint: endpointProto(endpoint) };
      },
      async rotateEndpointSecret(req) {
        const { endpoint, secret } = await endpoints.rotateSecret(requireScope(req.scope), req.id, clock.now());
        return { endpoint: endpointProto(endpoint), secret };
      },

      async listDeliveries(req) {
        const scope = requireScope(req.scope);
        const limit = pageLimit(req.limit);
        if (req.status !== undefined && !DELIVERY_STATUSES.includes(req.status as never)) {
          throw invalidField('status', `status must be one of ${DELIVERY_STATUSES.join(', ')}`);
        }
        const page = await deliveries.list(scope, {
          endpointId: req.endpointId, eventType: req.eventType, status: req.status, startingAfter: req.startingAfter, limit,
        });
        return { deliveries: page.deliveries.map(deliveryProto), hasMore: page.hasMore };
      },
      async getDelivery(req) {
        const delivery = await deliveries.get(requireScope(req.scope), req.id);
        if (!delivery) throw notFound(req.id);
        const { attempts, body } = await deliveries.history(delivery.id);
        return { delivery: deliveryProto(delivery), attempts: attempts.map(attemptProto), eventBody: body };
      },
      async resendDelivery(req) {
        const scope = requireScope(req.scope);
        const url = await deliveries.destination(scope, req.id);
        if (url === undefined) throw notFound(req.id);
        // Paced like every attempt to its host, waiting a second at most: a burst of resends is no flood.
        if (!(await deps.dispatcher.pace(url, PACE_HORIZON_MS, () => false))) {
          throw serviceError('rate_limited', `Deliveries to ${hostOf(url)} are paced and its next slot is more than a second away; try again shortly.`);
        }
        const now = clock.now();
        const claim = await deliveries.claimForResend(scope, req.id, now, deps.dispatcher.leaseFrom(now));
        if (claim === undefined) throw notFound(req.id);
        if (claim === 'busy') {
          throw serviceError('invalid_state_transition', `Delivery ${req.id} is being attempted right now; try again shortly.`, { param: 'id' });
        }
        await deps.dispatcher.resend(claim);
        const [delivery, attempt] = await Promise.all([deliveries.get(scope, req.id), deliveries.attempt(req.id, claim.attempt)]);
        return { delivery: deliveryProto(delivery!), attempt: attempt && attemptProto(attempt) };
      },

      async sendTestEvent(req) {
        const scope = requireScope(req.scope);
        const type = req.eventType ?? 'payment.successful';
        if (!isOneOf(EVENT_TYPES, type)) {
          throw invalidField('event_type', `"${type}" is not an event type; known types: ${EVENT_TYPES.join(', ')}`);
        }
        const now = clock.now();
        const event = testEvent(scope, type, now);
        // Stored and fanned out here rather than published: on the bus the ledger would book a
        // sample payment as money. Delivery, signature, retries and history are the same.
        const count = await storeEvent(deps.pool, event, now, true);
        if (count > 0) deps.dispatcher.kick();
        return { eventId: event.id, deliveries: count };
      },

      async listPaymentTimeline(req) {
        const attempts = await deliveries.paymentAttempts(requireScope(req.scope), req.paymentId);
        return { entries: attempts.map(timelineEntry) };
      },

      async listEventsAfter(req) {
        const scope = requireScope(req.scope);
        const unknown = req.eventTypes.find((t) => !isOneOf(EVENT_TYPES, t));
        if (unknown !== undefined) throw invalidField('event_types', `"${unknown}" is not an event type`);
        return listEventsAfter(deps.pool, scope, req.cursor, req.eventTypes, pageLimit(req.limit));
      },

      async listEvents(req) {
        const scope = requireScope(req.scope);
        if (req.type !== undefined && !isOneOf(EVENT_TYPES, req.type)) {
          throw invalidField('type', `"${req.type}" is not an event type; known types: ${EVENT_TYPES.join(', ')}`);
        }
        const from = req.from && timestampDate(req.from);
        const to = req.to && timestampDate(req.to);
        if (from && to && from > to) throw invalidField('from', 'from must not be after to');
        const page = await deps.events.list(scope, {
          type: req.type, from, to, startingAfter: req.startingAfter, limit: pageLimit(req.limit),
        });
        return { events: page.events, hasMore: page.hasMore };
      },
      async recoverEndpoint(req) {
        const scope = requireScope(req.scope);
        if (!req.since) throw invalidField('since', 'since is required: the time from which failed deliveries are resent');
        const endpoint = await endpoints.get(scope, req.endpointId);
        if (!endpoint.enabled) {
          throw serviceError('invalid_state_transition',
            `Webhook endpoint ${endpoint.id} is disabled and is sent nothing: enable it, then recover (a single delivery can still be resent).`);
        }
        const r = await deps.recovery.recover(scope, { id: endpoint.id, url: endpoint.url, maxPerSecond: endpoint.max_per_second },
          timestampDate(req.since));
        return {
          deliveries: r.deliveries, joined: r.joined, running: r.running, resent: r.resent,
          since: timestampFromDate(r.since), startedAt: timestampFromDate(r.startedAt),
        };
      },
      async takeEndpointNotices(req) {
        const notices = await endpoints.takeNotices(clock.now(), Math.min(NOTICES_AT_ONCE, Math.max(1, req.limit || NOTICES_AT_ONCE)));
        return {
          notices: notices.map((n) => ({
            scope: { merchantId: n.merchantId, projectId: n.projectId, mode: n.mode }, endpoint: endpointProto(n.endpoint),
          })),
        };
      },
      async acknowledgeEndpointNotices(req) {
        await endpoints.acknowledgeNotices(req.endpointIds);
        return {};
      },
      async getEvent(req) {
        const event = await deps.events.get(requireScope(req.scope), req.id);
        if (!event) throw serviceError('resource_not_found', `No event ${req.id}`, { param: 'id' });
        return { event };
      },
    });
  };
}
