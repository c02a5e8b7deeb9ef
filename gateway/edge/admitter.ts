import { createBatcher } from '../../services/platform/batcher.js';
import type { Clock } from '../../services/platform/clock.js';
import type { Pool } from '../../services/platform/db.js';
import { sha256Hex } from '../../services/platform/ids.js';
import type { Logger } from '../../services/platform/logger.js';
import { notificationListener } from '../../services/platform/notification-listener.js';
import { ADMISSION_CHANNEL, parseChange, type GatewayStore, type Identity, type KeyCache } from '../store/index.js';
import { createLastUse } from './last-use.js';
import { createRateCounter, RATE_FLUSH_MS } from './rate-counter.js';
import type { WindowCounts } from './rate-limit.js';

// Admission from memory: which key, project and mode a presented secret is (the key cache, kept
// right across replicas by LISTEN/NOTIFY, store/key-cache.ts), and whether its rate limit allows
// the request (counts in memory, reconciled through Postgres, rate-counter.ts). Each concern is its
// own function: the lookup, the count, the last-use stamp, and the background reconciliation.

/** A presented key's identity, the ceiling that applies to it and the count of this request. */
export interface Admission {
  identity: Identity;
  limit: number;
  counts: WindowCounts;
}

export interface AdmitterDeps {
  pool: Pool;
  store: GatewayStore;
  keyCache: KeyCache;
  clock: Clock;
  logger: Logger;
  flushMs?: number;
  retryMs?: number;
}

export function createAdmitter(deps: AdmitterDeps) {
  const flushMs = deps.flushMs ?? RATE_FLUSH_MS;
  const counter = createRateCounter(deps.store, flushMs);
  const lastUse = createLastUse(deps.store);
  // Lookups that miss the cache together share one statement.
  const lookUp = createBatcher(async (hashes: string[]) => {
    const found = await deps.store.identitiesByHash([...new Set(hashes)]);
    return hashes.map((hash) => found.get(hash));
  }, 256);
  const listener = notificationListener({
    pool: deps.pool, logger: deps.logger, channel: ADMISSION_CHANNEL, subject: 'gateway: admission cache',
    retryMs: deps.retryMs,
    onNotification: (payload) => deps.keyCache.drop(parseChange(payload)),
    onLive: (live) => deps.keyCache.setLive(live),
  });
  let timer: NodeJS.Timeout | undefined;
  let started = false;
  let reconciling: Promise<void> | undefined;
  // Logged when reconciliation starts failing, not on every try (every flush interval).
  let failing = false;

  /**
   * Reconciles one flush interval after the first request counted since the last time: an idle
   * gateway is not woken ten times a second to find nothing to write. A failed reconciliation gave
   * its counts back (rate-counter.ts) and is tried again an interval later.
   */
  function reconcileSoon(): void {
    if (timer || !started) return;
    timer = setTimeout(() => {
      timer = undefined;
      reconcile().then(() => { failing = false; }, (err: Error) => {
        if (!failing) deps.logger.warn({ err: err.message }, 'gateway: rate-limit counts not reconciled; retried every flush interval');
        failing = true;
        reconcileSoon();
      });
    }, flushMs);
    timer.unref();
  }

  /** The identity behind a secret: from the cache while it is live, else from Postgres. */
  async function identify(secret: string): Promise<Identity | undefined> {
    const hash = sha256Hex(secret);
    const cached = deps.keyCache.get(hash);
    if (cached) return cached;
    const since = deps.keyCache.reading();
    const identity = await lookUp(hash);
    if (identity) deps.keyCache.put(hash, since, identity);
    return identity;
  }

  /** Writes the counts and last uses gathered since the last time, and reads the other replicas' counts. */
  function reconcile(): Promise<void> {
    reconciling ??= (async () => {
      const now = deps.clock.now();
      await counter.reconcile(now);
      await lastUse.write(now);
    })().finally(() => { reconciling = undefined; });
    return reconciling;
  }

  return {
    /**
     * The identity behind a presented secret with this request counted against its ceiling
     * (`defaultLimit` unless the key has its own); undefined for an unknown or revoked key, which
     * counts nothing. `at` is the gateway's clock, the database's (services/platform/database-clock.ts),
     * so every replica puts a request in the same clock minute.
     */
    async admit(secret: string, defaultLimit: number, at: Date): Promise<Admission | undefined> {
      const identity = await identify(secret);
      if (!identity) return undefined;
      const limit = identity.apiKey.rateLimitPerMinute ?? defaultLimit;
      lastUse.note(identity.apiKey.id, at);
      reconcileSoon();
      return { identity, limit, counts: await counter.count(identity.apiKey.id, limit, at) };
    },

    /** Gives back the count of an admitted request refused after all (by the IP allow-list). */
    uncount(keyId: string, at: Date): void {
      counter.uncount(keyId, at);
      reconcileSoon();
    },

    reconcile,

    /** Listens for changes (the cache stays off until it does); from now on counts are reconciled. */
    async start(): Promise<void> {
      await listener.start();
      started = true;
    },

    /** Stops listening and writes what is left. */
    async stop(): Promise<void> {
      started = false;
      clearTimeout(timer);
      timer = undefined;
      await listener.stop();
      await reconciling?.catch(() => undefined);
      await reconcile().catch((err: Error) => deps.logger.warn({ err: err.message }, 'gateway: last rate-limit counts not written'));
    },
  };
}

export type Admitter = ReturnType<typeof createAdmitter>;
