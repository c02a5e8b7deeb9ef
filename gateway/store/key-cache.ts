import type { AdmissionChange } from './admission-change.js';
import type { Identity } from './keys.js';

// Admission from memory: which key, project and mode a presented secret is, kept per replica by the
// secret's hash, so a request costs no lookup in Postgres. Correct across replicas because every
// change to what the lookup reads notifies (migration 0010's triggers) and the replica's listener
// drops what it names (edge/admission.ts); this process's own changes drop theirs before they answer.
// Nothing is served while the listener is not listening (notifications would be missed then), and
// going live again starts empty. A lookup that a drop overtook is not kept: the row it read may be
// the one the drop was about. Unknown and revoked keys are never kept: each of their requests reads.

/** The channel migration 0010's triggers notify. */
export const ADMISSION_CHANNEL = 'gateway_admission';
/** A bound on what a notification lost to a bug could leave stale; the listener is the mechanism. */
const TTL_MS = 60_000;
/** Past this many keys the oldest goes: a bound on memory, not a policy. */
const MAX_KEYS = 10_000;

/** What a change names: the triggers' ["key" | "project" | "merchant", id], or everything. */

export interface KeyCache {
  /** The identity behind a secret's hash, when cached, younger than the TTL, and the cache is live. */
  get(hash: string): Identity | undefined;
  /** Taken before a lookup: `put` keeps its result only if nothing was dropped since. */
  reading(): number;
  put(hash: string, since: number, identity: Identity): void;
  drop(change: AdmissionChange): void;
  /** Whether invalidations arrive (the listener is listening); either way everything is dropped. */
  setLive(live: boolean): void;
  readonly live: boolean;
}

/** A notification's payload as a change; anything unexpected drops everything. */
export function parseChange(payload: string | undefined): AdmissionChange {
  try {
    const [kind, id] = JSON.parse(payload ?? '') as [string, string];
    if ((kind === 'key' || kind === 'project' || kind === 'merchant') && typeof id === 'string') return { kind, id };
  } catch {
    // '*' and anything else
  }
  return '*';
}

function names(identity: Identity, change: Exclude<AdmissionChange, '*'>): boolean {
  if (change.kind === 'key') return identity.apiKey.id === change.id;
  if (change.kind === 'project') return identity.project.id === change.id;
  return identity.merchant.id === change.id;
}

export function createKeyCache(now: () => number = Date.now): KeyCache {
  const keys = new Map<string, { identity: Identity; until: number }>();
  let generation = 0;
  let live = false;

  function drop(change: AdmissionChange) {
    generation++;
    if (change === '*') return keys.clear();
    for (const [hash, entry] of keys) if (names(entry.identity, change)) keys.delete(hash);
  }

  return {
    get(hash) {
      const entry = live ? keys.get(hash) : undefined;
      return entry && entry.until > now() ? entry.identity : undefined;
    },
    reading: () => generation,
    put(hash, since, identity) {
      if (!live || since !== generation) return;
      keys.delete(hash);
      if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
      keys.set(hash, { identity, until: now() + TTL_MS });
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
