import { timestampDate, timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { DeadLetter } from '../../proto/gen/svc/outbox/v1/outbox_pb.js';
import { DomainError } from '../../services/contract/index.js';
import type { OutboxPart } from '../clients.js';
import { decodeCursor, page } from '../http/cursor.js';
import { audit, type ManageDeps, type ManageHandlers } from './context.js';

// Events a producing part's outbox relay parked (docs/decisions/2026-11-23-no-event-blocks-another-event-durability.md, "No event blocks another"),
// kept by that part and managed here over gRPC (OutboxService):
//   GET  /manage/v1/dead-letters?part=P[&limit&cursor]          oldest first
//   POST /manage/v1/dead-letters/:event_id/republish?part=P      back to the relay; answers the outcome
//   POST /manage/v1/outbox/republish?part=P       {since}        publish again what was published since
// P is payments, payouts or ledger. Payloads never leave the part: only their size.

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

export function deadLetterJson(d: DeadLetter, part: OutboxPart) {
  return {
    id: d.eventId, object: 'dead_letter', part, event_id: d.eventId, event_type: d.type, aggregate_id: d.aggregateId,
    merchant_id: d.merchantId, project_id: d.projectId, mode: d.mode, attempts: d.attempts, last_error: d.lastError,
    payload_bytes: d.payloadBytes, held_back: d.heldBack, created_at: iso(d.createdAt), parked_at: iso(d.parkedAt),
  };
}

export function deadLetterHandlers(deps: ManageDeps): ManageHandlers {
  const { outbox } = deps.clients;
  return {
    async listDeadLetters(request) {
      const q = request.query as { part: OutboxPart; limit: number; cursor?: string };
      const res = await outbox[q.part].listDeadLetters({
        limit: q.limit, startingAfter: q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'evt'),
      });
      return page(res.deadLetters.map((d) => deadLetterJson(d, q.part)), res.hasMore);
    },

    async republishDeadLetter(request) {
      const { part } = request.query as { part: OutboxPart };
      const res = await outbox[part].republishDeadLetter({ eventId: (request.params as { event_id: string }).event_id });
      const json = { status: res.status, dead_letter: deadLetterJson(res.deadLetter!, part) };
      await audit(deps, 'dead_letter.republished', {
        merchantId: json.dead_letter.merchant_id, projectId: json.dead_letter.project_id, targetId: json.dead_letter.event_id,
        data: { part, event_type: json.dead_letter.event_type, status: res.status },
      });
      return json;
    },

    async republishOutbox(request) {
      const { part } = request.query as { part: OutboxPart };
      const since = new Date((request.body as { since: string }).since);
      if (Number.isNaN(since.getTime())) {
        throw new DomainError('validation_error', 'since must be a time such as 2026-11-20T10:00:00Z', { param: 'since' });
      }
      const res = await outbox[part].republishSince({ since: timestampFromDate(since) });
      const json = { object: 'outbox_republish', part, since: since.toISOString(), events: Number(res.events) };
      await audit(deps, 'outbox.republished', { data: json });
      return json;
    },
  };
}
