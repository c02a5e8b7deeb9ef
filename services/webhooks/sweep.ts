import type { Clock } from '../platform/clock.js';
import type { Pool } from '../platform/db.js';
import type { Logger } from '../platform/logger.js';

// The webhooks part's periodic sweep, in every replica (each statement is safe to run twice at once):
//  - endpoint health: an enabled endpoint whose every attempt has failed for WEBHOOK_DISABLE_AFTER_HOURS
//    (failing_since that long ago, and failing still: its latest failure after that point) is
//    disabled with reason `failing`, its unfinished deliveries parked as a manual disable parks them,
//    and a notice is left for the gateway, which mails the project's owners (TakeEndpointNotices);
//  - retention: events older than WEBHOOK_RETENTION_DAYS go with their deliveries and attempts, in
//    batches, except an event with a delivery still unfinished (kept until it finishes); attempts
//    older than that go even then.

const BATCH = 500;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Disables the endpoints failing since before `cutoff`; returns their ids. */
export async function disableFailing(pool: Pool, now: Date, cutoff: Date): Promise<string[]> {
  const { rows } = await pool.query(
    `WITH disabled AS (
       UPDATE endpoints SET enabled = false, disabled_reason = 'failing', disabled_at = $1, notice_pending = true,
         notice_lease_until = NULL, updated_at = $1
       WHERE enabled AND failing_since IS NOT NULL AND failing_since <= $2 AND last_failed_at > $2
       RETURNING id
     ), held AS (
       UPDATE deliveries SET next_attempt_at = 'infinity', updated_at = $1
       WHERE endpoint_id IN (SELECT id FROM disabled) AND status IN ('pending', 'failed') AND next_attempt_at <> 'infinity'
     )
     SELECT id FROM disabled`,
    [now, cutoff],
  );
  return rows.map((r) => r.id as string);
}

/** Deletes what is past retention at `cutoff`; returns how many events and attempts went. */
export async function sweepRetention(pool: Pool, cutoff: Date, batch = BATCH): Promise<{ events: number; attempts: number }> {
  let events = 0;
  for (;;) {
    const { rows } = await pool.query(
      `WITH gone AS (
         SELECT ev.id FROM events ev
         WHERE ev.created_at < $1 AND NOT EXISTS (
           SELECT 1 FROM deliveries d WHERE d.event_id = ev.id AND d.status IN ('pending', 'delivering', 'failed'))
         ORDER BY ev.created_at LIMIT $2 FOR UPDATE SKIP LOCKED
       ), attempts AS (
         DELETE FROM delivery_attempts a USING deliveries d
         WHERE a.delivery_id = d.id AND d.event_id IN (SELECT id FROM gone)
       ), deliveries_ AS (
         DELETE FROM deliveries WHERE event_id IN (SELECT id FROM gone)
       )
       DELETE FROM events WHERE id IN (SELECT id FROM gone) RETURNING id`,
      [cutoff, batch],
    );
    events += rows.length;
    if (rows.length < batch) break;
  }
  let attempts = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM delivery_attempts WHERE id IN (
         SELECT id FROM delivery_attempts WHERE started_at < $1 ORDER BY started_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [cutoff, batch],
    );
    attempts += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) break;
  }
  return { events, attempts };
}

export interface SweepOptions {
  pool: Pool;
  clock: Clock;
  logger: Logger;
  retentionDays: number;
  /** 0: endpoints are never disabled for failing. */
  disableAfterHours: number;
  everyMs: number;
  /** Called with the endpoints just disabled. */
  onDisabled?(ids: string[]): void;
}

export function startSweep(opts: SweepOptions) {
  let running: Promise<unknown> = Promise.resolve();
  async function runOnce() {
    const now = opts.clock.now();
    const disabled = opts.disableAfterHours > 0
      ? await disableFailing(opts.pool, now, new Date(now.getTime() - opts.disableAfterHours * HOUR)) : [];
    if (disabled.length > 0) {
      opts.logger.warn({ endpoints: disabled }, 'webhook endpoints failing every delivery were disabled');
      opts.onDisabled?.(disabled);
    }
    const swept = await sweepRetention(opts.pool, new Date(now.getTime() - opts.retentionDays * DAY));
    if (swept.events + swept.attempts > 0) opts.logger.info(swept, 'webhook events and attempts past retention deleted');
    return { disabled, ...swept };
  }
  const timer = setInterval(() => {
    running = running.then(runOnce).catch((err: Error) => opts.logger.warn({ err: err.message }, 'webhooks sweep failed; will retry'));
  }, opts.everyMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
