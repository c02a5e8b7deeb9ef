import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ConnectRouter } from '@connectrpc/connect';
import { OutboxService, type DeadLetter } from '../../proto/gen/svc/outbox/v1/outbox_pb.js';
import type { Pool } from './db.js';
import { invalidField, serviceError } from '../contract/errors.js';
import {
  findOutboxEvent, listDeadLetters, releaseDeadLetter, republishSince, type DeadLetterRow,
} from './outbox-dead-letters.js';
import type { OutboxRelay } from './outbox.js';
import { pageLimit } from './request-guards.js';

// OutboxService (proto/svc/outbox/v1/outbox.proto): every producing part serves it beside its
// own services (assemblePart adds it), for the gateway's /manage/v1/dead-letters.

function deadLetterOf(row: DeadLetterRow): Omit<DeadLetter, '$typeName' | '$unknown'> {
  return {
    eventId: row.eventId, type: row.type, aggregateId: row.aggregateId, merchantId: row.merchantId,
    projectId: row.projectId, mode: row.mode, attempts: row.attempts, lastError: row.lastError,
    payloadBytes: row.payloadBytes, createdAt: timestampFromDate(row.createdAt),
    parkedAt: row.parkedAt ? timestampFromDate(row.parkedAt) : undefined, heldBack: row.heldBack,
  };
}

function statusOf(row: DeadLetterRow): 'published' | 'parked' | 'pending' {
  if (row.publishedAt) return 'published';
  return row.parkedAt ? 'parked' : 'pending';
}

export function outboxRoutes(pool: Pool, relay: OutboxRelay) {
  return (router: ConnectRouter) => {
    router.service(OutboxService, {
      async listDeadLetters(req) {
        const limit = pageLimit(req.limit);
        const { rows, hasMore } = await listDeadLetters(pool, limit, req.startingAfter);
        return { deadLetters: rows.map(deadLetterOf), hasMore };
      },

      async republishDeadLetter(req) {
        if (!(await releaseDeadLetter(pool, req.eventId))) {
          const row = await findOutboxEvent(pool, req.eventId);
          if (!row) throw serviceError('resource_not_found', `No event ${req.eventId} in this part's outbox`, { param: 'event_id' });
          throw serviceError('invalid_state_transition', `Event ${req.eventId} is not parked (it is ${statusOf(row)})`, {
            param: 'event_id',
          });
        }
        // One round now, so the operator sees the outcome; a replica holding the row finishes it instead.
        await relay.drain();
        const row = (await findOutboxEvent(pool, req.eventId))!;
        return { status: statusOf(row), deadLetter: deadLetterOf(row) };
      },

      async republishSince(req) {
        if (!req.since) throw invalidField('since', 'since is required');
        const since = timestampDate(req.since);
        if (since.getTime() > Date.now()) throw invalidField('since', 'since is in the future');
        const events = await republishSince(pool, since);
        relay.kick();
        return { events: BigInt(events) };
      },
    });
  };
}
