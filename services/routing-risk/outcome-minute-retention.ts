import type { Clock } from '../platform/clock.js';
import type { Pool } from '../platform/db.js';
import { every } from '../platform/every.js';
import type { Logger } from '../platform/logger.js';
import { READ_WINDOW_MINUTES } from './strategies/index.js';

// outcome_minutes (migration 0008) gains a row per project, account, segment level and five-minute
// bucket with traffic, in scopes that learn (outcome-store.ts); planning reads only the last READ_WINDOW_MINUTES. Older rows are deleted hourly,
// keeping a day for looking into a decision after the fact. The outcome rows themselves
// (attempt_outcomes) are not touched here.

export const KEEP_MINUTES = Math.max(24 * 60, READ_WINDOW_MINUTES);
const INTERVAL_MS = 60 * 60_000;
const BATCH = 5000;

/** Deletes minutes before `beforeMinute`, in batches that hold no lock for long; returns how many rows went. */
export async function pruneOutcomeMinutes(pool: Pool, beforeMinute: number, batch = BATCH): Promise<number> {
  let deleted = 0;
  for (;;) {
    const { rowCount } = await pool.query(
      `DELETE FROM outcome_minutes WHERE ctid IN (
         SELECT ctid FROM outcome_minutes WHERE minute < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [beforeMinute, batch],
    );
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) return deleted;
  }
}

/** The part's hourly pruning job (start() and stop() with the part). */
export function outcomeMinutePruning(pool: Pool, clock: Clock, logger: Logger) {
  return every(INTERVAL_MS, 'routing-risk outcome minutes pruning', logger, async () => {
    const deleted = await pruneOutcomeMinutes(pool, Math.floor(clock.now().getTime() / 60_000) - KEEP_MINUTES);
    if (deleted > 0) logger.info({ deleted }, 'routing-risk: outcome minutes past retention deleted');
  });
}
