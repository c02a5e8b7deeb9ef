import type { Pool } from '../platform/db.js';
import { invalidField } from '../contract/index.js';
import type { Scope } from './endpoints.js';

// A scope's stored events as a stream, for `svc listen` (ListEventsAfter). Events are stored in
// batches, by several replicas, and a batch may commit well after its received_at, so a cursor on
// a timestamp or on an id would skip a batch that committed late. Instead each row keeps the id of
// the transaction that stored it (migration 0002), and the cursor is the database snapshot of the
// previous poll: the next poll returns exactly the rows whose transaction that snapshot had not
// seen committed. Nothing committed after a stream starts is missed, and nothing is sent twice
// except a page resent after a reconnect (the event id is the receivers' deduplication key).

export interface StreamedEvent {
  id: string;
  type: string;
  /** The exact body deliveries send (fan-out.ts eventBody). */
  body: string;
}

export interface EventPage {
  events: StreamedEvent[];
  cursor: string;
  hasMore: boolean;
}

/**
 * `after`: the snapshot of the previous poll. While a backlog is read page by page, `upto` holds
 * the snapshot the pages read up to and `tx`/`id` the last row sent, so every page reads one
 * fixed set of transactions.
 */
interface Cursor {
  after: string;
  upto?: string;
  tx?: string;
  id?: string;
}

const SNAPSHOT = /^\d{1,20}:\d{1,20}:(\d{1,20}(,\d{1,20})*)?$/;

function encode(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

// Cursors come back from clients (an SSE Last-Event-ID), so each part is checked before SQL casts it.
function decode(text: string): Cursor {
  const bad = () => invalidField('cursor', 'cursor is not one this stream issued; reconnect without it');
  let c: Cursor;
  try {
    c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  const ok = typeof c === 'object' && c !== null && typeof c.after === 'string' && SNAPSHOT.test(c.after) &&
    (c.upto === undefined || (typeof c.upto === 'string' && SNAPSHOT.test(c.upto))) &&
    (c.tx === undefined || (typeof c.tx === 'string' && /^\d{1,20}$/.test(c.tx))) &&
    (c.id === undefined || (typeof c.id === 'string' && /^evt_\w{1,64}$/.test(c.id))) &&
    (c.tx === undefined) === (c.id === undefined) && (c.tx === undefined || c.upto !== undefined);
  if (!ok) throw bad();
  return c;
}

/** Where a new stream starts: now. */
async function startCursor(pool: Pool): Promise<EventPage> {
  const { rows } = await pool.query('SELECT pg_current_snapshot()::text AS snapshot');
  return { events: [], cursor: encode({ after: rows[0].snapshot }), hasMore: false };
}

/**
 * The scope's events stored since `cursor` (none and a fresh cursor when it is empty), at most
 * `limit`, of the given types (all when empty), in the order their transactions began.
 */
export async function listEventsAfter(
  pool: Pool, scope: Scope, cursorText: string, types: string[], limit: number,
): Promise<EventPage> {
  if (cursorText === '') return startCursor(pool);
  const c = decode(cursorText);
  // pg_current_snapshot() is the statement's own snapshot: the rows read are exactly those it sees.
  const { rows } = await pool.query({
    name: 'webhooks-events-after',
    text: `WITH s AS (SELECT COALESCE($5::pg_snapshot, pg_current_snapshot()) AS upto)
      SELECT s.upto::text AS upto, e.id, e.type, e.body, e.tx::text AS tx
      FROM s LEFT JOIN LATERAL (
        SELECT ev.id, ev.type, ev.body, ev.tx FROM events ev
        WHERE ev.merchant_id = $1 AND ev.project_id = $2 AND ev.mode = $3
          AND ev.tx >= pg_snapshot_xmin($4::pg_snapshot)
          AND NOT pg_visible_in_snapshot(ev.tx, $4::pg_snapshot)
          AND pg_visible_in_snapshot(ev.tx, s.upto)
          AND ($6::xid8 IS NULL OR (ev.tx, ev.id) > ($6::xid8, $7::text))
          AND (cardinality($8::text[]) = 0 OR ev.type = ANY ($8::text[]))
        ORDER BY ev.tx, ev.id
        LIMIT $9
      ) e ON true`,
    values: [scope.merchantId, scope.projectId, scope.mode, c.after, c.upto ?? null, c.tx ?? null, c.id ?? null,
      types, limit + 1],
  });
  const upto: string = rows[0].upto;
  const found = rows.filter((r) => r.id !== null);
  const page = found.slice(0, limit);
  const hasMore = found.length > limit;
  const last = page[page.length - 1];
  return {
    events: page.map((r) => ({ id: r.id, type: r.type, body: r.body })),
    cursor: encode(hasMore ? { after: c.after, upto, tx: last.tx, id: last.id } : { after: upto }),
    hasMore,
  };
}
