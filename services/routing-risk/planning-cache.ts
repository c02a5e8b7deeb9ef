import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import type { ProviderAccount } from './provider-account.js';
import type { RoutingRule } from './routing-rules.js';

// What planning a payment reads that rarely changes, a scope's accounts and routing rules, kept in
// process so that a plan needs no read of them (issue 28). Correct across replicas: every write to
// those tables notifies (migration 0011's triggers) and planning-listener.ts drops the entries it
// names; this process's own API changes drop theirs before they answer; nothing is kept or served
// while the listener is not listening, since notifications would be missed then, and going live
// (a reconnection) starts empty. The TTL bounds what a silently dead listening connection could
// leave stale. A read that an invalidation overtook is not kept. Never here: velocity (every payment
// counts) and outcome history (every outcome counts), which store.ts reads on each plan.

/** The channel migration 0011's triggers notify. */
export const PLANNING_CHANNEL = 'routing_risk_planning';
export const PLANNING_CACHE_TTL_MS = 30_000;
/** Past this many scopes the oldest entry goes: a bound on memory, not a policy. */
const MAX_SCOPES = 10_000;

export interface ScopeInputs {
  accounts: ProviderAccount[];
  rules: RoutingRule[];
}

type ScopeRef = Pick<Scope, 'merchantId' | 'projectId' | 'mode'>;

/** A scope as notifications name it: the triggers' JSON array [merchant, project, mode]. */
export const scopeKey = (s: ScopeRef) => JSON.stringify([s.merchantId, s.projectId, s.mode]);

export interface PlanningCache {
  /** The scope's inputs, when cached, younger than the TTL, and the cache is live. */
  get(scope: ScopeRef): ScopeInputs | undefined;
  /** Taken before a read: `put` keeps the read's result only if nothing was dropped since. */
  reading(): number;
  put(scope: ScopeRef, since: number, inputs: ScopeInputs): void;
  /** Drops one scope (scopeKey) or, with '*', everything. */
  drop(key: string): void;
  /** Whether invalidations arrive (the listener is listening); either way everything is dropped. */
  setLive(live: boolean): void;
  readonly live: boolean;
}

export function createPlanningCache(ttlMs = PLANNING_CACHE_TTL_MS, now: () => number = Date.now): PlanningCache {
  const entries = new Map<string, { inputs: ScopeInputs; until: number }>();
  let generation = 0;
  let live = false;
  const drop = (key: string) => {
    generation++;
    if (key === '*') entries.clear();
    else entries.delete(key);
  };
  return {
    get(scope) {
      const entry = live ? entries.get(scopeKey(scope)) : undefined;
      return entry && entry.until > now() ? entry.inputs : undefined;
    },
    reading: () => generation,
    put(scope, since, inputs) {
      if (!live || since !== generation) return;
      const key = scopeKey(scope);
      entries.delete(key);
      if (entries.size >= MAX_SCOPES) entries.delete(entries.keys().next().value!);
      entries.set(key, { inputs, until: now() + ttlMs });
    },
    drop,
    setLive(value) {
      live = value;
      drop('*');
    },
    get live() {
      return live;
    },
  };
}
