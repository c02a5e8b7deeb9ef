import { RetryLater } from './retry-later.js';

// A bound on the scrypt work in flight in this process. Each derivation holds one libuv thread-pool
// thread (4 by default, shared with file and DNS work) and 32 MiB for about 100 ms: unbounded,
// a burst of anonymous requests (bogus confirms, registrations, sign-ins) queues every other request
// of the process behind it. Over the bound a request is refused at once (429, Retry-After: 1) rather
// than queued: a person retries a second later, a script learns nothing and spends nothing of ours.

/** Derivations at once: half the default thread pool, so file and DNS work always find a thread. */
export const MAX_HASHES_IN_FLIGHT = 2;
export const HASHING_RETRY_AFTER_SECONDS = 1;

const stats = { inFlight: 0, peakInFlight: 0, computed: 0, refused: 0 };

/** How much hashing this process did and refused (for tests and diagnostics; never secrets). */
export function hashingStats(): Readonly<typeof stats> {
  return { ...stats };
}

/** 429 rate_limited (RetryLater) at once when no place is free: lets a caller refuse before it records anything. */
export function refuseIfHashingFull(): void {
  if (stats.inFlight < MAX_HASHES_IN_FLIGHT) return;
  stats.refused += 1;
  throw new RetryLater(
    `The server is busy checking passwords; try again in ${HASHING_RETRY_AFTER_SECONDS} second.`, HASHING_RETRY_AFTER_SECONDS,
  );
}

/** Runs one password derivation if a place is free, else refuses with 429 rate_limited at once. */
export async function gatedHash<T>(derive: () => Promise<T>): Promise<T> {
  refuseIfHashingFull();
  stats.inFlight += 1;
  stats.peakInFlight = Math.max(stats.peakInFlight, stats.inFlight);
  stats.computed += 1;
  try {
    return await derive();
  } finally {
    stats.inFlight -= 1;
  }
}
