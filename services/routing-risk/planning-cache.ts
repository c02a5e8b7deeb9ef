import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import type { ProviderAccount } from './provider-account.js';
import type { RoutingRule } from './routing-rules.js';

// What planning a payment reads that rarely changes, kept in process so that a plan reads less:
// a scope's accounts and routing rules, and the closed buckets of its outcome history
// (those before the bucket under way; the open one is read on every plan). Correct across replicas:
// every write to those tables notifies (migration 0011's triggers) and planning-listener.ts drops
// what it names; this process's own API changes drop theirs before they answer; nothing is kept or
// served while the listener is not listening, since notifications would be missed then, and going
// live (a reconnection) starts empty. A listening connection that died silently (a partition) is
// found by the listener's heartbeat within a second; the TTL is a last bound on anything stale.
// A read that a drop overtook is not kept. Never here: velocity (every payment counts).

/** The channel migration 0011's triggers notify. */
export const PLANNING_CHANNEL = 'routing_risk_planning';
export const PLANNING_CACHE_TTL_MS = 30_000;
/** Past this many scopes the oldest goes: a bound on memory, not a policy. */
const MAX_SCOPES = 10_000;
/** Past this many segments' closed buckets (each up to 24 rows per account and level) the oldest project's go. */
const MAX_SEGMENTS = 2_000;

export interface ScopeInputs {
  accounts: ProviderAccount[];
  rules: RoutingRule[];
}

/** A bucket row of the planning read: [account, level, minute, succeeded, soft, hard, technical]. */
export type HistoryRow = [string, number, number, number, number, number, number];

/** The closed buckets of one segment's history, read when `openBucket` was the bucket under way. */
export interface ClosedHistory {
  openBucket: number;
  rows: HistoryRow[];
}

type ScopeRef = Pick<Scope, 'merchantId' | 'projectId' | 'mode'>;

/** A scope as notifications name it: the triggers' JSON array [merchant, project, mode]. */
export const scopeKey = (s: ScopeRef) => JSON.stringify([s.merchantId, s.projectId, s.mode]);
/** Outcome history is the project's and mode's (outcome_minutes has no merchant). */
const historyKey = (s: Pick<Scope, 'projectId' | 'mode'>) => JSON.stringify([s.projectId, s.mode]);

export interface PlanningCache {
  /** The scope's inputs, when cached, younger than the TTL, and the cache is live. */
  get(scope: ScopeRef): ScopeInputs | undefined;
  /** Taken before a read: `put` keeps the read's result only if no scope was dropped since. */
  reading(): number;
  put(scope: ScopeRef, since: number, inputs: ScopeInputs): void;
  /** A segment's closed buckets, if cached while `openBucket` is still the bucket under way. */
  closed(scope: ScopeRef, segment: string, openBucket: number): HistoryRow[] | undefined;
  /** Taken before a history read that will keep the buckets before `openBucket`. */
  readingHistory(openBucket: number): number;
  putClosed(scope: ScopeRef, segment: string, since: number, closed: ClosedHistory): void;
  /** Drops one scope (scopeKey), its history with it, or, with '*', everything. */
  drop(key: string): void;
  /** Outcomes were counted into the project's and mode's buckets from `minute` on: cached closed buckets that reach it go. */
  late(projectId: string, mode: string, minute: number): void;
  /** Whether invalidations arrive (the listener is listening); either way everything is dropped. */
  setLive(live: boolean): void;
  readonly live: boolean;
}

export function createPlanningCache(ttlMs = PLANNING_CACHE_TTL_MS, now: () => number = Date.now): PlanningCache {
  const scopes = new Map<string, { inputs: ScopeInputs; until: number }>();
  // By historyKey, then segment.
  const histories = new Map<string, Map<string, ClosedHistory & { until: number }>>();
  let generation = 0;
  let historyGeneration = 0;
  // The newest bucket a history read has kept buckets before: a late count after it concerns no read.
  let newestOpenBucket = -Infinity;
  let live = false;

  // Counted only when a segment is new to the cache.
  const segmentCount = () => {
    let count = 0;
    for (const segments of histories.values()) count += segments.size;
    return count;
  };

  function drop(key: string) {
    generation++;
    historyGeneration++;
    if (key === '*') {
      scopes.clear();
      histories.clear();
      return;
    }
    scopes.delete(key);
    const [, projectId, mode] = JSON.parse(key) as [string, string, string];
    histories.delete(historyKey({ projectId, mode }));
  }

  return {
    get(scope) {
      const entry = live ? scopes.get(scopeKey(scope)) : undefined;
      return entry && entry.until > now() ? entry.inputs : undefined;
    },
    reading: () => generation,
    put(scope, since, inputs) {
      if (!live || since !== generation) return;
      const key = scopeKey(scope);
      scopes.delete(key);
      if (scopes.size >= MAX_SCOPES) scopes.delete(scopes.keys().next().value!);
      scopes.set(key, { inputs, until: now() + ttlMs });
    },
    closed(scope, segment, openBucket) {
      const entry = live ? histories.get(historyKey(scope))?.get(segment) : undefined;
      return entry && entry.openBucket === openBucket && entry.until > now() ? entry.rows : undefined;
    },
    readingHistory(openBucket) {
      newestOpenBucket = Math.max(newestOpenBucket, openBucket);
      return historyGeneration;
    },
    putClosed(scope, segment, since, closed) {
      if (!live || since !== historyGeneration) return;
      const key = historyKey(scope);
      if (!histories.get(key)?.has(segment) && segmentCount() >= MAX_SEGMENTS) histories.delete(histories.keys().next().value!);
      let segments = histories.get(key);
      if (!segments) histories.set(key, (segments = new Map()));
      segments.set(segment, { ...closed, until: now() + ttlMs });
    },
    drop,
    late(projectId, mode, minute) {
      if (minute >= newestOpenBucket) return;
      historyGeneration++;
      const segments = histories.get(historyKey({ projectId, mode }));
      for (const [segment, entry] of segments ?? []) if (minute < entry.openBucket) segments!.delete(segment);
    },
    setLive(value) {
      live = value;
      drop('*');
    },
    get live() {
      return live;
    },
  };
}
