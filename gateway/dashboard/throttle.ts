// Sign-in throttling: at most SIGN_IN_LIMIT attempts per email and client address in a sliding
// window of SIGN_IN_WINDOW_MS. Counting per pair (not per email alone) keeps an attacker from locking
// a merchant out of their own account from another address. The counts live in Postgres
// (gateway/store/sign-in-throttle.ts), so every replica sees one budget; this file holds the rule.

export const SIGN_IN_LIMIT = 5;
export const SIGN_IN_WINDOW_MS = 15 * 60_000;

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Whether one more attempt fits, given the times of the pair's attempts still in the window (any
 * order). When it does not, the wait is until the oldest of them leaves the window.
 */
export function decideAttempt(
  attempts: readonly Date[], at: Date, limit = SIGN_IN_LIMIT, windowMs = SIGN_IN_WINDOW_MS,
): ThrottleDecision {
  const recent = attempts.map((a) => a.getTime()).filter((t) => t > at.getTime() - windowMs).sort((a, b) => a - b);
  if (recent.length < limit) return { allowed: true };
  // The attempt that must age out for one more to fit (the window may hold more than limit if the limit was lowered).
  const freeing = recent[recent.length - limit];
  const waitMs = freeing + windowMs - at.getTime();
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}
