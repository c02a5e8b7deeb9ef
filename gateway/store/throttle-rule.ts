// The sign-in throttle per email and client address: it slows guessing down without ever locking
// the right password out. It counts failures, not sign-ins: an attempt is recorded before the
// password is checked (so parallel guesses cannot all slip through) and a right password forgets
// the pair's record. The first FREE_FAILURES failures in SIGN_IN_WINDOW_MS cost nothing; after
// that, each attempt must come at least a growing interval after the last failure (1 s, 2 s, 4 s ...
// at most MAX_DELAY_MS). An attempt inside the interval is refused (429, Retry-After) unchecked and
// not counted; one after it is checked, and signs in if the password is right: an attacker who
// guessed wrong from the owner's address delays the owner by at most a minute, never for good.
// The records live in Postgres (sign-in-throttle.ts), so every replica sees one budget;
// this file holds the rule. Operator tokens use the same rule, but a right token skips it altogether.

export const FREE_FAILURES = 5;
/** How long a failure counts; a sweep of sign_in_attempts must keep younger rows. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const FIRST_DELAY_MS = 1_000;
export const MAX_DELAY_MS = 60_000;

export type ThrottleDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** The interval an attempt must keep after the last of `failures` recent failures (0 while free). */
export function delayAfter(failures: number): number {
  if (failures <= FREE_FAILURES) return 0;
  return Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(failures - FREE_FAILURES - 1, 30));
}

/**
 * Whether an attempt may be checked now, given the times of the pair's failures (any order). When
 * it may not, the wait is until the interval after the latest failure has passed (at least 1 s).
 */
export function decideAttempt(failures: readonly Date[], at: Date): ThrottleDecision {
  const recent = failures.map((a) => a.getTime()).filter((t) => t > at.getTime() - SIGN_IN_WINDOW_MS);
  if (recent.length === 0) return { allowed: true };
  const waitMs = Math.max(...recent) + delayAfter(recent.length) - at.getTime();
  if (waitMs <= 0) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}

/**
 * A plain sliding-window budget: whether one more event fits `limit` in `windowMs`, given the times
 * of earlier ones (any order); when it does not, the wait until the oldest that counts leaves the window.
 */
export function decideWindow(times: readonly Date[], at: Date, limit: number, windowMs: number): ThrottleDecision {
  const recent = times.map((t) => t.getTime()).filter((t) => t > at.getTime() - windowMs).sort((a, b) => a - b);
  if (recent.length < limit) return { allowed: true };
  const waitMs = recent[recent.length - limit] + windowMs - at.getTime();
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
}
