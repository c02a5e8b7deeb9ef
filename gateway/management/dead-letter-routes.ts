import { timestampDate, timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import type { FastifyInstance } from 'fastify';
import type { DeadLetter, OutboxService } from '../../proto/gen/svc/outbox/v1/outbox_pb.js';
import { DomainError, type Clock } from '../../services/shared/index.js';
import { decodeCursor, page } from '../http/cursor.js';
import type { GatewayStore } from '../store/index.js';

/**
 * Events a producing part's outbox relay parked (docs/decisions.md, "No event blocks another"),
 * kept by that part and managed here over gRPC (OutboxService):
 *   GET  /manage/v1/dead-letters?part=P[&limit&cursor]          oldest first
 *   POST /manage/v1/dead-letters/:event_id/republish?part=P      back to the relay; answers the outcome
 *   POST /manage/v1/outbox/republish?part=P       {since}        publish again what was published since
 * P is payments, payouts or ledger. Payloads never leave the part: only their size.
 */
export const OUTBOX_PARTS = ['payments', 'payouts', 'ledger'] as const;
export type OutboxPart = (typeof OUTBOX_PARTS)[number];
export type OutboxClients = Partial<Record<OutboxPart, Client<typeof OutboxService>>>;

export interface DeadLetterRouteDeps {
  outbox?: OutboxClients;
  store: GatewayStore;
}

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);
const partSchema = { type: 'string', enum: OUTBOX_PARTS } as const;
const partQuery = { type: 'object', additionalProperties: false, required: ['part'], properties: { part: partSchema } };

export function deadLetterJson(d: DeadLetter, part: OutboxPart) {
  return {
    id: d.eventId, object: 'dead_letter', part, event_id: d.eventId, event_type: d.type, aggregate_id: d.aggregateId,
    merchant_id: d.merchantId, project_id: d.projectId, mode: d.mode, attempts: d.attempts, last_error: d.lastError,
    payload_bytes: d.payloadBytes, held_back: d.heldBack, created_at: iso(d.createdAt), parked_at: iso(d.parkedAt),
  };
}

export function deadLetterRoutes(scoped: FastifyInstance, deps: DeadLetterRouteDeps, clock: Clock, actor: string): void {
  const outbox = (part: OutboxPart) => {
    const client = deps.outbox?.[part];
    if (!client) throw new DomainError('service_unavailable', `Dead letters of ${part} need the ${part} part's URL on the gateway.`);
    return client;
  };

  scoped.get<{ Querystring: { part: OutboxPart; limit: number; cursor?: string } }>('/dead-letters', {
    schema: {
      querystring: {
        type: 'object', additionalProperties: false, required: ['part'],
        properties: {
          part: partSchema, limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 }, cursor: { type: 'string' },
        },
      },
    },
  }, async (request) => {
    const q = request.query;
    const res = await outbox(q.part).listDeadLetters({
      limit: q.limit, startingAfter: q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'evt'),
    });
    return page(res.deadLetters.map((d) => deadLetterJson(d, q.part)), res.hasMore);
  });

  scoped.post<{ Params: { event_id: string }; Querystring: { part: OutboxPart } }>(
    '/dead-letters/:event_id/republish', { schema: { querystring: partQuery } }, async (request) => {
      const { part } = request.query;
      const res = await outbox(part).republishDeadLetter({ eventId: request.params.event_id });
      const json = { status: res.status, dead_letter: deadLetterJson(res.deadLetter!, part) };
      await deps.store.recordAudit(actor, 'dead_letter.republished', clock.now(), {
        merchantId: json.dead_letter.merchant_id, projectId: json.dead_letter.project_id, targetId: json.dead_letter.event_id,
        data: { part, event_type: json.dead_letter.event_type, status: res.status },
      });
      return json;
    },
  );

  scoped.post<{ Querystring: { part: OutboxPart }; Body: { since: string } }>('/outbox/republish', {
    schema: {
      querystring: partQuery,
      body: {
        type: 'object', additionalProperties: false, required: ['since'],
        properties: { since: { type: 'string', minLength: 1, maxLength: 64 } },
      },
    },
  }, async (request) => {
    const { part } = request.query;
    const since = new Date(request.body.since);
    if (Number.isNaN(since.getTime())) {
      throw new DomainError('validation_error', 'since must be a time such as 2026-11-20T10:00:00Z', { param: 'since' });
    }
    const res = await outbox(part).republishSince({ since: timestampFromDate(since) });
    const json = { object: 'outbox_republish', part, since: since.toISOString(), events: Number(res.events) };
    await deps.store.recordAudit(actor, 'outbox.republished', clock.now(), { data: json });
    return json;
  });
}
