import type { LearningSettings } from './types.js';

/**
 * One of an account's newest attempts in the payment's method and currency, newest first, as the
 * planning read returns them (history-read.ts's healthSql): its age by the database's clock, and
 * whether it was a technical failure or time-out (hard declines are the card's and are not read).
 */
export interface RecentAttempt {
  ageSeconds: number;
  technical: boolean;
}

/** Per account, its newest attempts (up to HEALTH_READ_ATTEMPTS within HEALTH_READ_MINUTES), newest first. */
export type HealthHistory = Map<string, RecentAttempt[]>;

/** How many of an account's newest attempts the planning read returns: eliminationAttempts above it read this many. */
export const HEALTH_READ_ATTEMPTS = 100;
/** How far back it reads them: six times the longest elimination window (20 minutes). */
export const HEALTH_READ_MINUTES = 120;
/**
 * Answered attempts in a row, newest first, that end an outage: the failures older than them are
 * forgiven when they alone would eliminate the account. Two, so a partial outage does not let one
 * lucky answer bring it back.
 */
export const RECOVERY_RUN = 2;

export interface Health {
  sample: number;
  technical: number;
  share: number;
  /** An outage's failures were forgiven after RECOVERY_RUN answered attempts. */
  recovered: boolean;
}

const shareOf = (attempts: RecentAttempt[]) => {
  const technical = attempts.filter((a) => a.technical).length;
  return { sample: attempts.length, technical, share: attempts.length === 0 ? 0 : technical / attempts.length };
};

/**
 * The attempts health is judged on: the newest up to `eliminationAttempts` within `eliminationMinutes`,
 * or, for an account that gets too few attempts for that (an eliminated one sees only probes),
 * further back until `eliminationMinSample`, up to six times as far.
 */
export function healthWindow(attempts: RecentAttempt[] | undefined, s: LearningSettings): RecentAttempt[] {
  const window: RecentAttempt[] = [];
  for (const a of attempts ?? []) {
    const age = a.ageSeconds / 60;
    const enough = window.length >= Math.min(s.eliminationAttempts, HEALTH_READ_ATTEMPTS)
      || (age >= s.eliminationMinutes && window.length >= s.eliminationMinSample)
      || age >= s.eliminationMinutes * 6;
    if (enough) break;
    window.push(a);
  }
  return window;
}

/**
 * An account's recent technical failures and time-outs, from its newest attempts in real time (no
 * bucket: an outage counts from its first failure). When the window holds a run of RECOVERY_RUN
 * answered attempts and the `eliminationAttempts` before that run (at least `eliminationMinSample`
 * of them) would eliminate the account on their own, the outage is over: only the attempts since
 * count, so it returns once its probes succeed instead of when its failures age out, and stays back
 * while they age out.
 */
export function recentHealth(attempts: RecentAttempt[] | undefined, s: LearningSettings): Health {
  const window = healthWindow(attempts, s);
  let end = -1;
  for (let i = 0; i + RECOVERY_RUN <= window.length && end < 0; i++) {
    if (window.slice(i, i + RECOVERY_RUN).every((a) => !a.technical)) {
      end = i + RECOVERY_RUN;
      while (end < window.length && !window[end]!.technical) end++;
    }
  }
  if (end > 0) {
    const before = shareOf((attempts ?? []).slice(end, end + s.eliminationAttempts)
      .filter((a) => a.ageSeconds < s.eliminationMinutes * 6 * 60));
    if (before.sample >= s.eliminationMinSample && before.share >= s.eliminationThreshold) {
      return { ...shareOf(window.slice(0, end)), recovered: true };
    }
  }
  return { ...shareOf(window), recovered: false };
}

/** Technical failures over attempts across the accounts' health windows: the prior of an account with too few. */
export function pooledTechnicalShare(history: HealthHistory, accounts: string[], s: LearningSettings): number {
  let technical = 0;
  let sample = 0;
  for (const id of accounts) {
    const h = recentHealth(history.get(id), s);
    technical += h.technical;
    sample += h.sample;
  }
  return sample === 0 ? 0 : technical / sample;
}

/**
 * Attempts of the other accounts newer than this account's newest one: how long an eliminated
 * account has gone untried, counted in the segment's attempts. An account never tried counts as
 * long enough.
 */
export function attemptsSince(history: HealthHistory, account: string, others: string[]): number {
  const newest = history.get(account)?.[0];
  if (!newest) return Infinity;
  let n = 0;
  for (const id of others) for (const a of history.get(id) ?? []) if (a.ageSeconds < newest.ageSeconds) n++;
  return n;
}

/**
 * Whether this payment probes an eliminated account: once every 1/share of the segment's attempts
 * since it was last tried (so recovery is seen within a bounded number of payments, not by luck),
 * and right after a probe that was answered, to confirm it (RECOVERY_RUN). Share 0: never.
 */
export function probeDue(history: HealthHistory, account: string, others: string[], share: number): boolean {
  if (share <= 0) return false;
  const newest = history.get(account)?.[0];
  const spacing = newest && !newest.technical ? 0 : Math.ceil(1 / share);
  return attemptsSince(history, account, others) >= spacing;
}
