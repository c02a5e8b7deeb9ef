import type { FastifyReply } from 'fastify';
import { DomainError } from '../../services/contract/index.js';

// Per-API-key rate limit over a rolling minute: the rule, written once. The estimate of requests in
// the last 60 s is
//   previous × (time left in the current clock minute / 60 s) + current,
// the previous minute's requests taken as evenly spread, and a request fits while the estimate
// including it stays within the ceiling. Compared in integer milliseconds:
//   previous × left_ms + current × 60000 ≤ limit × 60000.
// Counting (in memory, reconciled through Postgres across replicas) is rate-counter.ts's; the
// policy is in the decision records.

/** The rolling window, and also the width of each counting bucket (a clock minute). */
export const RATE_WINDOW_MS = 60_000;
const W = RATE_WINDOW_MS;

/** What one request's counting saw: enough to derive remaining capacity and reset times. */
export interface WindowCounts {
  /** Whether this request fitted under the ceiling and was counted. */
  admitted: boolean;
  /** Requests admitted in the previous clock minute. */
  previous: number;
  /** Requests admitted in the current clock minute, this one included when admitted. */
  current: number;
  /** How far the request is into the current clock minute, 0 ≤ elapsedMs < RATE_WINDOW_MS. */
  elapsedMs: number;
}

/** The clock minute `at` falls in (its first instant, ms), and how far into it. */
export function windowOf(at: Date): { start: number; elapsedMs: number } {
  const ms = at.getTime();
  const elapsedMs = ((ms % W) + W) % W;
  return { start: ms - elapsedMs, elapsedMs };
}

/** The most requests the current clock minute may hold (the rule solved for `current`). */
export function minuteCeiling(previous: number, elapsedMs: number, limit: number): number {
  return Math.floor((limit * W - previous * (W - elapsedMs)) / W);
}

/** Further requests the key may make right now; 0 once a request has been refused. */
export function remainingCapacity(counts: WindowCounts, limit: number): number {
  // A refusal's `current` may already be overtaken by another replica.
  if (!counts.admitted) return 0;
  return Math.max(0, minuteCeiling(counts.previous, counts.elapsedMs, limit) - counts.current);
}

/**
 * Milliseconds until `n` more requests would fit, with no further traffic meanwhile.
 * Within the current minute capacity returns as the previous minute's weight shrinks; if the
 * current minute alone is too full, only the next minute (where these requests start to decay)
 * helps. Infinity when `n` exceeds the ceiling itself.
 */
export function msUntilAdmits(counts: WindowCounts, limit: number, n: number): number {
  const { previous, current } = counts;
  const leftMs = W - counts.elapsedMs;
  if (current + n <= limit) {
    const spare = (limit - current - n) * W;
    if (previous * leftMs <= spare) return 0;
    return leftMs - Math.floor(spare / previous);
  }
  if (n > limit) return Infinity;
  return leftMs + W - Math.floor(((limit - n) * W) / current);
}

/**
 * Whole seconds until the window frees capacity: after a refusal, until one request fits again
 * (also sent as Retry-After, at least 1); otherwise until `remaining` next goes up by one. Never
 * more than the window's own 60 s: a request of the current minute can take up to two minutes to
 * leave the rolling window, and a client told to wait 60 s that is refused again is told again
 * (the contract's "wait at least").
 */
export function resetSeconds(counts: WindowCounts, limit: number): number {
  const wanted = counts.admitted ? remainingCapacity(counts, limit) + 1 : 1;
  const seconds = Math.ceil(msUntilAdmits(counts, limit, wanted) / 1000);
  return Math.min(W / 1000, counts.admitted ? seconds : Math.max(1, seconds));
}

/**
 * Sets the rate-limit headers of an authenticated /v1 request and refuses it with 429 past the
 * ceiling. Every such request is counted, whatever its outcome (a 404 or 422 costs the server work
 * too); a refused one is not, so a client that keeps retrying too early is not locked out for longer.
 */
export function applyRateLimit(reply: FastifyReply, counts: WindowCounts, limit: number): void {
  const reset = resetSeconds(counts, limit);
  // Set before a refusal is thrown: the error handler keeps headers already on the reply.
  reply.header('x-ratelimit-limit', String(limit));
  reply.header('x-ratelimit-remaining', String(remainingCapacity(counts, limit)));
  reply.header('x-ratelimit-reset', String(reset));
  if (!counts.admitted) {
    reply.header('retry-after', String(reset));
    throw new DomainError(
      'rate_limited',
      `Too many requests with this API key: the limit is ${limit} per rolling minute. Retry in ${reset} s.`,
    );
  }
}
