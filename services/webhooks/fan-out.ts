import { isOneOf, MODES } from '../contract/enums.js';
import { MAX_ENABLED_WEBHOOK_ENDPOINTS } from '../contract/project-caps.js';
import { createBatcher } from '../platform/batcher.js';
import type { EventBus, Subscription } from '../platform/bus/index.js';
import type { Clock } from '../platform/clock.js';
import type { Pool } from '../platform/db.js';
import { isInternalType } from '../platform/internal-events.js';
import type { Logger } from '../platform/logger.js';
import { currentTraceparent } from '../platform/tracing.js';
import { type EventEnvelope } from '../contract/index.js';

/** The contract's body: exactly these five fields; the bus's merchant_id and project_id stay home. */
export function eventBody(event: EventEnvelope): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    mode: event.mode,
    created_at: event.created_at,
    data: { object: event.data.object },
  });
}

/** The payment an event is about: the payment itself, or a refund's payment; null for the rest. */
export function paymentIdOf(event: EventEnvelope): string | null {
  const object = event.data.object as { object?: unknown; id?: unknown; payment_id?: unknown };
  const id = object.object === 'payment' ? object.id : object.payment_id;
  return typeof id === 'string' ? id : null;
}

function wellFormed(e: EventEnvelope): boolean {
  return typeof e?.id === 'string' && /^evt_\w+$/.test(e.id) && typeof e.type === 'string' && e.type.length > 0 &&
    isOneOf(MODES, e.mode) && typeof e.merchant_id === 'string' && typeof e.project_id === 'string' &&
    typeof e.created_at === 'string' && !Number.isNaN(Date.parse(e.created_at)) &&
    typeof e.data?.object === 'object' && e.data.object !== null;
}

/** An event and the trace context it came with (services/platform/tracing.ts): stored beside its body, not in it. */
interface Received {
  event: EventEnvelope;
  traceparent?: string;
}

/**
 * Stores events once each (the id is the key: a redelivered event changes nothing) and, in the
 * same statement, one pending delivery for every enabled endpoint of each event's merchant,
 * project and mode subscribed to its type. Returns the number of deliveries created (0 for repeats).
 */
async function storeEvents(pool: Pool, received: Received[], now: Date, test = false): Promise<number> {
  const events = received.map((r) => r.event);
  const col = <T>(f: (e: EventEnvelope) => T) => events.map(f);
  const { rowCount } = await pool.query({
    name: 'webhooks-store-events',
    text: `WITH ev AS (
       INSERT INTO events (id, type, merchant_id, project_id, mode, body, created_at, received_at, test, payment_id, traceparent)
       SELECT DISTINCT ON (id) id, type, merchant_id, project_id, mode, body, created_at, $8, $9, payment_id, traceparent
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $10::text[],
         $11::text[]) AS t(id, type, merchant_id, project_id, mode, body, created_at, payment_id, traceparent)
       ON CONFLICT (id) DO NOTHING
       RETURNING id, type, merchant_id, project_id, mode
     )
     INSERT INTO deliveries (id, event_id, endpoint_id, merchant_id, project_id, mode, event_type, status,
       attempt_count, next_attempt_at, created_at, updated_at)
     SELECT new_id('whd', $8), ev.id, e.id, ev.merchant_id, ev.project_id, ev.mode, ev.type, 'pending', 0, $8, $8, $8
     FROM ev JOIN endpoints e
       ON e.merchant_id = ev.merchant_id AND e.project_id = ev.project_id AND e.mode = ev.mode
     WHERE e.enabled AND (e.events = '{*}' OR ev.type = ANY (e.events))
       AND ($12::int IS NULL OR e.id IN (
         SELECT x.id FROM endpoints x
         WHERE x.merchant_id = ev.merchant_id AND x.project_id = ev.project_id AND x.mode = ev.mode
           AND x.enabled AND (x.events = '{*}' OR ev.type = ANY (x.events))
         ORDER BY x.id LIMIT $12))`,
    values: [col((e) => e.id), col((e) => e.type), col((e) => e.merchant_id), col((e) => e.project_id), col((e) => e.mode),
      col(eventBody), col((e) => e.created_at), now, test, col(paymentIdOf), received.map((r) => r.traceparent ?? null),
      test ? MAX_ENABLED_WEBHOOK_ENDPOINTS : null],
  });
  return rowCount ?? 0;
}

/**
 * A test event (POST /v1/webhooks/test) goes to at most MAX_ENABLED_WEBHOOK_ENDPOINTS endpoints, the
 * oldest first, even in a project that had more before the cap: one call must not fan out without
 * bound. Real events still reach every enabled endpoint subscribed to them.
 */
export function storeEvent(pool: Pool, event: EventEnvelope, now: Date, test = false): Promise<number> {
  return storeEvents(pool, [{ event, traceparent: currentTraceparent() }], now, test);
}

export interface ConsumerOptions {
  pool: Pool;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  subjectPrefix: string;
  /** Events the bus hands the handler at once; those that arrive during a write are stored together by the next. */
  inFlight: number;
  /** How long a lone event waits for company before its statement (WEBHOOK_EVENTS_WAIT_MS). */
  waitMs: number;
  /** Called when deliveries were created, so they are attempted at once. */
  onDeliveries(): void;
}

/**
 * The durable consumer `webhooks` over every event subject. The bus hands it several events at
 * once and they are stored in batches, so events may be stored out of order, which the contract
 * allows. Each is acknowledged once its batch is written.
 */
export async function consumeEvents(opts: ConsumerOptions): Promise<Subscription> {
  // Events arriving while a batch is being written, or within waitMs of a lone one, are stored
  // together by the next statement, and their messages acknowledged together.
  const store = createBatcher(async (events: Received[]) => {
    if ((await storeEvents(opts.pool, events, opts.clock.now())) > 0) opts.onDeliveries();
    return events.map(() => undefined);
  }, opts.inFlight, opts.waitMs);
  const handler = async (event: EventEnvelope) => {
    // Internal domain events (services/platform/internal-events.ts) share the stream but are never public.
    if (isInternalType(event?.type ?? '')) return;
    // A malformed message would be redelivered forever; it is dropped, loudly.
    if (!wellFormed(event)) {
      opts.logger.error({ id: (event as { id?: unknown })?.id }, 'webhooks: malformed event dropped');
      return;
    }
    // A throw (database unavailable) leaves the message unacknowledged: the bus delivers it again.
    // The consumer's span (the bus continues the event's trace) is what its delivery attempts continue.
    await store({ event, traceparent: currentTraceparent() });
  };
  return opts.bus.consume('webhooks', [`${opts.subjectPrefix}.>`], handler, { concurrency: opts.inFlight });
}
