import pg from 'pg';
import type { Pool } from './db.js';
import type { Logger } from './logger.js';

// A connection that LISTENs on one channel for a process's in-memory cache (routing-risk's planning
// cache, the gateway's admission cache). A cache fed by notifications is only correct while none can
// be missed, so the cache is told when the LISTEN stands and when it is lost: an error, the
// connection's end (pg_terminate_backend, a restart) or a heartbeat left unanswered (a connection
// that died silently, where no error would ever come). Listening starts again after `retryMs`.
// The connection is the pool's kind (its settings) but its own, one more per process: held out of
// the pool it would starve a pool of one.

/** Wait before listening again after the connection was lost or could not be made. */
export const LISTEN_RETRY_MS = 1_000;

/**
 * A round trip on the connection this often: a connection dead without an error is found within
 * twice this. On by default: a cache that never hears it missed a notification serves stale rows.
 */
export const LISTEN_HEARTBEAT_MS = 500;

export interface NotificationListenerOptions {
  pool: Pool;
  channel: string;
  logger: Logger;
  /** What the log line names when the cache goes off. */
  subject: string;
  onNotification(payload: string | undefined): void;
  /** true once LISTEN stands; false when it is lost or stopped (the cache must forget everything). */
  onLive(live: boolean): void;
  retryMs?: number;
  /** A round trip on the connection this often; one unanswered within the same time ends it. 0: none. */
  heartbeatMs?: number;
}

export function notificationListener(opts: NotificationListenerOptions) {
  const retryMs = opts.retryMs ?? LISTEN_RETRY_MS;
  const heartbeatMs = opts.heartbeatMs ?? LISTEN_HEARTBEAT_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let held: pg.Client | undefined;

  function retry() {
    if (!stopped && !timer) timer = setTimeout(() => void listen(), retryMs);
  }

  function lose(client: pg.Client, err: Error) {
    if (held !== client) return;
    held = undefined;
    clearInterval(heartbeat);
    opts.onLive(false);
    client.end().catch(() => undefined);
    if (!stopped) opts.logger.warn({ err: err.message }, `${opts.subject} off until its LISTEN connection is back`);
    retry();
  }

  function beat(client: pg.Client, everyMs: number) {
    let answered = true;
    heartbeat = setInterval(() => {
      if (!answered) return lose(client, new Error(`no answer on the LISTEN connection within ${everyMs} ms`));
      answered = false;
      // LISTEN again (a no-op) rather than SELECT 1: the connection still shows what it is for.
      client.query(`LISTEN ${opts.channel}`).then(() => { answered = true; }, (err: Error) => lose(client, err));
    }, everyMs);
    heartbeat.unref();
  }

  async function listen() {
    timer = undefined;
    const client = new pg.Client(opts.pool.options);
    held = client;
    client.on('notification', (n) => opts.onNotification(n.payload));
    client.on('error', (err) => lose(client, err));
    client.on('end', () => lose(client, new Error('LISTEN connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${opts.channel}`);
      if (held !== client) return;
      opts.onLive(true);
      if (heartbeatMs > 0) beat(client, heartbeatMs);
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
      clearInterval(heartbeat);
      opts.onLive(false);
      const client = held;
      held = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
