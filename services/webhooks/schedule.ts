// The contract's retry schedule. Each delay counts from the start of the previous attempt, so the
// schedule holds whatever the receiver's response time (up to WEBHOOK_TIMEOUT_MS).

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** Delay before attempt 2, 3, 4, 5; attempt 6 and later wait LATER_DELAY_MS. */
const EARLY_DELAYS_MS = [30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE];
const LATER_DELAY_MS = 2 * 60 * MINUTE;

/** How long attempt `attempt` (2 or more) waits after the previous one started. */
export function delayBeforeAttempt(attempt: number): number {
  if (!Number.isInteger(attempt) || attempt < 2) throw new RangeError(`attempt ${attempt} has no delay before it`);
  return EARLY_DELAYS_MS[attempt - 2] ?? LATER_DELAY_MS;
}

export type AfterAttempt = { status: 'succeeded'; nextAttemptAt: null } | AfterFailure | { status: null; nextAttemptAt: null };

/**
 * What an attempt leaves its delivery in. An automatic attempt, number `scheduled` of the
 * schedule, moves it on: succeeded, or failed with its retry, or exhausted. A resend (manual) is an
 * extra attempt outside the schedule: a 2xx makes the delivery succeeded (no retry is needed any
 * more); a failure leaves it as it was (null), retry schedule and a success included.
 */
export function afterAttempt(ok: boolean, manual: boolean, scheduled: number, startedAt: Date, maxAttempts: number): AfterAttempt {
  if (ok) return { status: 'succeeded', nextAttemptAt: null };
  if (manual) return { status: null, nextAttemptAt: null };
  return afterFailure(scheduled, startedAt, maxAttempts);
}

export type AfterFailure = { status: 'failed'; nextAttemptAt: Date } | { status: 'exhausted'; nextAttemptAt: null };

/** What a failed attempt number `attempt`, started at `startedAt`, leaves the delivery in. */
export function afterFailure(attempt: number, startedAt: Date, maxAttempts: number): AfterFailure {
  if (attempt >= maxAttempts) return { status: 'exhausted', nextAttemptAt: null };
  return { status: 'failed', nextAttemptAt: new Date(startedAt.getTime() + delayBeforeAttempt(attempt + 1)) };
}

/** The longest pause a receiver's Retry-After may ask for; a longer one is held to this. */
export const MAX_RETRY_AFTER_MS = 60 * MINUTE;

/**
 * When a 429's Retry-After (seconds, or an HTTP date) lets the next attempt start, at least a
 * second and at most MAX_RETRY_AFTER_MS after `now`; undefined when the header is absent or unreadable.
 */
export function retryAfterTime(header: string | undefined, now: Date): Date | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  const ms = /^\d{1,10}$/.test(text) ? Number(text) * SECOND : Date.parse(text) - now.getTime();
  if (Number.isNaN(ms)) return undefined;
  return new Date(now.getTime() + Math.min(MAX_RETRY_AFTER_MS, Math.max(SECOND, ms)));
}
