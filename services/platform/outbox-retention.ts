import type { Logger } from 'pino';
import type { Pool } from './db.js';

// Published outbox rows are kept so that events a broker lost can be published again
// (`svc outbox republish --since`), but not forever: a part's outbox would otherwise grow by every
// event it ever wrote. Rows published more than OUTBOX_RETENTION_HOURS ago are deleted, oldest
// first, in batches small enough not to hold locks or bloat a transaction. Unpublished and parked
// rows are never touched. Replicas may prune at once: each batch deletes what it finds, and a row
// another replica deleted first is simply not found.

/** How often a part prunes its outbox. */
export const PRUNE_INTERVAL_MS = 60 * 60_000;
const BATCH = 1000;

/** Deletes rows published before `cutoff`; returns how many went. */
export async function pruneOutbox(pool: Pool, cutoff: Date, batch = BATCH): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM outbox WHERE event_id IN (
         SELECT event_id FROM outbox WHERE published_at < $1 ORDER BY published_at LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [cutoff, batch],
    );
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) return deleted;
  }
}

export interface OutboxPrunerOptions {
  pool: Pool;
  logger: Logger;
  /** 0 keeps every published row. */
  retentionHours: number;
  now: () => Date;
  intervalMs?: number;
}

/** Prunes a part's outbox every PRUNE_INTERVAL_MS, first a minute after start. */
export class OutboxPruner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly opts: OutboxPrunerOptions) {}

  start(): void {
    if (this.opts.retentionHours === 0) return;
    this.schedule(Math.min(60_000, this.opts.intervalMs ?? PRUNE_INTERVAL_MS));
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pruning pass; failures are logged and tried again at the next interval. */
  async prune(): Promise<number> {
    const cutoff = new Date(this.opts.now().getTime() - this.opts.retentionHours * 3_600_000);
    try {
      const deleted = await pruneOutbox(this.opts.pool, cutoff);
      if (deleted > 0) this.opts.logger.info({ deleted, cutoff }, 'outbox: published events past retention deleted');
      return deleted;
    } catch (err) {
      this.opts.logger.warn({ err: (err as Error).message }, 'outbox: pruning failed; will retry');
      return 0;
    }
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.running = this.prune().then(() => undefined).finally(() => {
        this.running = undefined;
        if (this.timer !== undefined) this.schedule(this.opts.intervalMs ?? PRUNE_INTERVAL_MS);
      });
    }, ms);
    this.timer.unref();
  }
}
