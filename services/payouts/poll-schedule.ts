/**
 * When a payout its provider holds pending is asked again. Stripe pays most payouts within a
 * business day or two, so asking every half minute spends its rate limit for nothing: the wait
 * doubles from the first one (abandonedAfterMs, 35 s at the default deadline) up to an hour, and is
 * shortened at random by up to a fifth so payouts sent together do not all ask together. The
 * provider's notification usually decides the payout first; this is the safety net for a lost one.
 */

/** The longest wait between two status queries of one payout. */
export const MAX_POLL_INTERVAL_MS = 3_600_000;
/** The share of a wait it may be shortened by at random. */
export const POLL_JITTER = 0.2;

/** The wait after the `polls`-th answer (1, 2, …) that found the payout still pending. */
export function pollDelayMs(firstMs: number, polls: number, random: () => number = Math.random): number {
  const full = Math.min(firstMs * 2 ** Math.max(0, polls - 1), MAX_POLL_INTERVAL_MS);
  return Math.round(full * (1 - POLL_JITTER * random()));
}
