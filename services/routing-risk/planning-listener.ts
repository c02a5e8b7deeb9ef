import pg from 'pg';
import type { Pool } from '../platform/db.js';
import type { Logger } from '../platform/logger.js';
import { PLANNING_CHANNEL, type PlanningCache } from './planning-cache.js';

/** Wait before listening again after the connection was lost or could not be made. */
export const LISTEN_RETRY_MS = 1_000;

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
 * from the cache. The cache is live only while the LISTEN stands: the connection lost (an error or
 * its end), it is switched off, which drops everything, and listening starts again after
 * LISTEN_RETRY_MS; live again, it starts empty. The connection is the pool's kind (its settings) but
 * its own, one more per process: held out of the pool it would starve a pool of one.
 */
export function planningListener(pool: Pool, cache: PlanningCache, logger: Logger, retryMs = LISTEN_RETRY_MS) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let held: pg.Client | undefined;

  function retry() {
    if (!stopped && !timer) timer = setTimeout(() => void listen(), retryMs);
  }

  function lose(client: pg.Client, err: Error) {
    if (held !== client) return;
    held = undefined;
    cache.setLive(false);
    client.end().catch(() => undefined);
    if (!stopped) logger.warn({ err: err.message }, 'routing-risk: planning cache off until its LISTEN connection is back');
    retry();
  }

  async function listen() {
    timer = undefined;
    const client = new pg.Client(pool.options);
    held = client;
    client.on('notification', (n) => apply(cache, n.payload));
    client.on('error', (err) => lose(client, err));
    client.on('end', () => lose(client, new Error('LISTEN connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${PLANNING_CHANNEL}`);
      if (held === client) cache.setLive(true);
    } catch (err) {
      lose(client, err as Error);
    }
  }

  return {
    /** Listens before it returns, or keeps trying in the background (the cache stays off meanwhile). */
    start: () => listen(),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      cache.setLive(false);
      const client = held;
      held = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
