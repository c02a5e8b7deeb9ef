import type { Client } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { StoredEvent, WebhooksService } from '../../proto/gen/svc/webhooks/v1/webhooks_pb.js';
import { scopeOf } from '../auth/authenticate.js';
import type { Handlers } from './handlers.js';
import { decodeCursor, encodeCursor } from '../http/cursor.js';

// GET /v1/events and GET /v1/events/{id}, kept by the webhooks part. Each event is answered as the
// stored body its deliveries send, unparsed: the JSON here and the JSON a webhook receives are one
// text, byte for byte (a parse and a new serialisation could only promise equal values). The list
// envelope is written around those texts for the same reason.

const JSON_TYPE = 'application/json; charset=utf-8';

function listText(events: StoredEvent[], hasMore: boolean): string {
  const next = hasMore && events.length > 0 ? JSON.stringify(encodeCursor(events[events.length - 1].id)) : 'null';
  return `{"data":[${events.map((e) => e.body).join(',')}],"has_more":${hasMore},"next_cursor":${next}}`;
}

export function eventHandlers(webhooks: Client<typeof WebhooksService>): Handlers {
  return {
    async listEvents(request, reply, identity) {
      const q = request.query as { type?: string; from?: string; to?: string; limit: number; cursor?: string };
      const res = await webhooks.listEvents({
        scope: scopeOf(identity),
        type: q.type,
        from: q.from === undefined ? undefined : timestampFromDate(new Date(q.from)),
        to: q.to === undefined ? undefined : timestampFromDate(new Date(q.to)),
        limit: q.limit,
        startingAfter: q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'evt'),
      });
      return reply.type(JSON_TYPE).send(listText(res.events, res.hasMore));
    },

    async getEvent(request, reply, identity) {
      const { id } = request.params as { id: string };
      const { event } = await webhooks.getEvent({ scope: scopeOf(identity), id });
      return reply.type(JSON_TYPE).send(event!.body);
    },
  };
}
