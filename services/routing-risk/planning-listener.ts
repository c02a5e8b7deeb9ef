import type { Pool } from '../platform/db.js';
import type { Logger } from '../platform/logger.js';
import { LISTEN_RETRY_MS, notificationListener } from '../platform/notification-listener.js';
import { PLANNING_CHANNEL, type PlanningCache } from './planning-cache.js';

/**
 * Applies one notification: a scope's JSON array [merchant, project, mode], or ["h", project, mode,
 * minute] for outcomes counted from that minute on; anything else (the triggers' '*') drops all.
 */
function apply(cache: PlanningCache, payload: string | undefined): void {
  let named: unknown;
  try {
    named = JSON.parse(payload ?? '');
  } catch {
    return cache.drop('*');
  }
  if (Array.isArray(named) && named.length === 3) return cache.drop(JSON.stringify(named));
  if (Array.isArray(named) && named.length === 4 && named[0] === 'h' && Number.isFinite(named[3])) {
    return cache.late(named[1], named[2], named[3]);
  }
  cache.drop('*');
}

/**
 * Keeps a connection LISTENing on migration 0011's channel and drops what each notification names
 * from the cache. The cache is live only while the LISTEN stands (services/platform's
 * notification-listener.ts); live again after a loss, it starts empty.
 */
export function planningListener(pool: Pool, cache: PlanningCache, logger: Logger, retryMs = LISTEN_RETRY_MS) {
  return notificationListener({
    pool, logger, retryMs, channel: PLANNING_CHANNEL, subject: 'routing-risk: planning cache',
    onNotification: (payload) => apply(cache, payload),
    onLive: (live) => cache.setLive(live),
  });
}
