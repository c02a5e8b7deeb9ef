import type { Logger } from 'pino';
import type { EventBus, StreamCheck } from './bus/index.js';
import { SERVICE_NAMES, type PartName } from './config.js';
import type { Pool } from './db.js';
import type { CounterHandle, Metrics } from './metrics.js';
import type { OutboxRelay } from './outbox.js';

// A broker that comes back without its store has lost what its stream held: events acknowledged
// (so marked sent in the outbox) but not yet consumed. Each row remembers the stream that took it
// (its creation time) and its sequence there; after each of the bus's stream checks a part records
// up to which sequence the current stream's consumers had acknowledged everything, and publishes
// again every row sent to an older stream beyond what that stream's mark proves consumed. The
// consumers deduplicate by event id in Postgres, so what is sent twice changes nothing.
// docs/decisions/2026-12-07-a-broker-that-comes-back-empty-heals-without.md, "A broker that comes back empty".

/** Records the current stream's consumed sequence (never lowering it: every reading is a proof). */
async function recordMark(pool: Pool, check: StreamCheck): Promise<void> {
  await pool.query(
    `INSERT INTO outbox_stream_marks (stream_created, consumed_seq, updated_at) VALUES ($1, $2, now())
     ON CONFLICT (stream_created) DO UPDATE
       SET consumed_seq = greatest(outbox_stream_marks.consumed_seq, EXCLUDED.consumed_seq), updated_at = now()`,
    [check.streamCreated, check.consumedSeq],
  );
}

/**
 * Rows sent to a stream older than the current one: those its mark does not cover go back to the
 * relay (unpublished, in their place); the others are settled (no stream to remember). Returns how
 * many go out again. Rows of the current stream are never touched, so a part that has not seen a
 * newer stream yet cannot send back what went to it.
 */
export async function resendLost(pool: Pool, streamCreated: string): Promise<number> {
  const { rows } = await pool.query(
    `WITH old AS (
       SELECT o.event_id,
              EXISTS (SELECT 1 FROM outbox_stream_marks m
                      WHERE m.stream_created = o.stream_created AND o.stream_seq <= m.consumed_seq) AS consumed
       FROM outbox o
       WHERE o.stream_created < $1::timestamptz
       FOR UPDATE OF o SKIP LOCKED
     ), resent AS (
       UPDATE outbox o
       SET published_at = NULL, attempts = 0, next_attempt_at = NULL, stream_created = NULL, stream_seq = NULL
       FROM old WHERE o.event_id = old.event_id AND NOT old.consumed
       RETURNING 1
     ), settled AS (
       UPDATE outbox o SET stream_created = NULL, stream_seq = NULL
       FROM old WHERE o.event_id = old.event_id AND old.consumed
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM resent)::int AS resent, (SELECT count(*) FROM settled)::int AS settled`,
    [streamCreated],
  );
  return rows[0].resent;
}

export type RepublishedCounter = CounterHandle<'part'>;

export function republishedCounter(metrics: Metrics): RepublishedCounter {
  return metrics.counter(
    'svc_outbox_republished_events_total',
    'Outbox events published again because the stream that had taken them was lost before every consumer had them',
    { part: SERVICE_NAMES },
  );
}

export interface StreamFollowerOptions {
  pool: Pool;
  bus: EventBus;
  relay: OutboxRelay;
  logger: Logger;
  part: PartName;
  republished?: RepublishedCounter;
}

/** Acts on each stream check of the bus, one at a time (the latest check waiting meanwhile). */
export function followStream(opts: StreamFollowerOptions): { start(): void; stop(): Promise<void> } {
  let unsubscribe: (() => void) | undefined;
  let running: Promise<void> | undefined;
  let waiting: StreamCheck | undefined;
  let lastMark: StreamCheck | undefined;
  const act = async (check: StreamCheck) => {
    if (lastMark?.streamCreated !== check.streamCreated || lastMark.consumedSeq < check.consumedSeq) {
      await recordMark(opts.pool, check);
      lastMark = check;
    }
    const resent = await resendLost(opts.pool, check.streamCreated);
    if (resent === 0) return;
    opts.republished?.inc({ part: opts.part }, resent);
    opts.logger.warn(
      { resent, stream_created: check.streamCreated },
      'outbox: events a lost NATS stream held but no consumer had yet are published again',
    );
    opts.relay.kick();
  };
  const run = () => {
    if (running || !waiting) return;
    const check = waiting;
    waiting = undefined;
    running = act(check)
      .catch((err) => opts.logger.warn({ err: (err as Error).message }, 'outbox: acting on the stream check failed; the next check tries again'))
      .finally(() => {
        running = undefined;
        run();
      });
  };
  return {
    start() {
      unsubscribe = opts.bus.onStreamCheck?.((check) => {
        waiting = check;
        run();
      });
    },
    async stop() {
      unsubscribe?.();
      waiting = undefined;
      await running;
    },
  };
}
