import type { Pool } from '../platform/db.js';
import type { Scope } from './endpoints.js';

// The scope's stored events for GET /v1/events and GET /v1/events/{id}. Each is returned as its
// stored body: the exact bytes every delivery of it sends, so an event read here and the same event
// received by a webhook are byte for byte one text. Internal events (`internal.*`) are never
// stored as public ones, and are excluded here as well in case a consumer ever keeps them in the
// same table. Ids sort by emission time (services/platform/ids.ts), so "newest first" is id order;
// the time filter reads created_at, the event's emission time.

export interface EventRow {
  id: string;
  type: string;
  body: string;
}

export interface EventFilters {
  type?: string;
  from?: Date;
  to?: Date;
  startingAfter?: string;
  limit: number;
}

const PUBLIC = `type NOT LIKE 'internal.%'`;

export function createEventsReader(pool: Pool) {
  return {
    async list(scope: Scope, f: EventFilters): Promise<{ events: EventRow[]; hasMore: boolean }> {
      const { rows } = await pool.query(
        `SELECT id, type, body FROM events
         WHERE merchant_id = $1 AND project_id = $2 AND mode = $3 AND ${PUBLIC}
           AND ($4::text IS NULL OR type = $4) AND ($5::timestamptz IS NULL OR created_at >= $5)
           AND ($6::timestamptz IS NULL OR created_at <= $6) AND ($7::text IS NULL OR id < $7)
         ORDER BY id DESC LIMIT $8`,
        [scope.merchantId, scope.projectId, scope.mode, f.type ?? null, f.from ?? null, f.to ?? null,
          f.startingAfter ?? null, f.limit + 1],
      );
      return { events: rows.slice(0, f.limit), hasMore: rows.length > f.limit };
    },

    async get(scope: Scope, id: string): Promise<EventRow | undefined> {
      const { rows } = await pool.query(
        `SELECT id, type, body FROM events WHERE id = $1 AND merchant_id = $2 AND project_id = $3 AND mode = $4 AND ${PUBLIC}`,
        [id, scope.merchantId, scope.projectId, scope.mode],
      );
      return rows[0];
    },
  };
}

export type EventsReader = ReturnType<typeof createEventsReader>;
