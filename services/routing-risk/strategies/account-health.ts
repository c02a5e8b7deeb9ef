import type { HealthHistory, LearningSettings, RecentAttempt } from './types.js';

/**
 * How many of an account's newest attempts the planning read returns: twice the default
 * eliminationAttempts, so an outage that ended can be judged beyond the window. An eliminationAttempts
 * above it counts as this many, and probes come at least once every this many attempts.
 */
export const HEALTH_READ_ATTEMPTS = 40;
/** How far back it reads them: six times the longest elimination window (20 minutes). */
export const HEALTH_READ_MINUTES = 120;
/**
 * Technical failures in a row that make an outage (a streak), and answered attempts in a row, newer
 * than a streak, that end it: the streak's failures are then forgiven. A failure on its own is
 * never forgiven, so a provider that keeps timing out a little still pays for it; two answered
 * attempts, so a partial outage does not come back on one lucky answer.
 */
export const OUTAGE_STREAK = 2;
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

/** The attempts without the streaks of failures that ended (each followed by RECOVERY_RUN answered ones). */
function withoutEndedOutages(attempts: RecentAttempt[]): { kept: RecentAttempt[]; forgiven: boolean } {
  const kept: RecentAttempt[] = [];
  let answered = 0;
  let forgiven = false;
  for (let i = 0; i < attempts.length;) {
    if (!attempts[i]!.technical) { kept.push(attempts[i]!); answered++; i++; continue; }
    let end = i;
    while (end < attempts.length && attempts[end]!.technical) end++;
    if (answered >= RECOVERY_RUN && end - i >= OUTAGE_STREAK) forgiven = true;
    else kept.push(...attempts.slice(i, end));
    answered = 0;
    i = end;
  }
  return { kept, forgiven };
}

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
 * bucket: an outage counts from its first failure), with the outages that ended forgiven: it
 * returns once its probes are answered instead of when its failures age out.
 */
export function recentHealth(attempts: RecentAttempt[] | undefined, s: LearningSettings): Health {
  const { kept, forgiven } = withoutEndedOutages(attempts ?? []);
  return { ...shareOf(healthWindow(kept, s)), recovered: forgiven };
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
 * Whether this payment should start at an account it would not start at: one whose newest attempt
 * failed, once every 1/share of the segment's attempts since (so an account that an outage moved
 * down, eliminated or not, is seen to recover within a bounded number of payments, not by luck or
 * by its failures ageing out), and at once after a probe answered that follows a streak of
 * failures, to confirm it (RECOVERY_RUN). Share 0: never.
 */
export function probeDue(history: HealthHistory, account: string, others: string[], share: number): boolean {
  const state = watchState(history.get(account));
  if (share <= 0 || state === undefined) return false;
  return state === 'confirming' || attemptsSince(history, account, others) >= Math.min(Math.ceil(1 / share), HEALTH_READ_ATTEMPTS);
}

/**
 * Whether an account is watched for recovery: 'failed' when its newest attempt failed, 'confirming'
 * when one answered attempt follows a streak of failures; undefined otherwise.
 */
export function watchState(newest: RecentAttempt[] | undefined): 'failed' | 'confirming' | undefined {
  if (!newest || newest.length === 0) return undefined;
  if (newest[0]!.technical) return 'failed';
  const answered = newest.findIndex((a) => a.technical);
  const streak = answered < 0 ? [] : newest.slice(answered, answered + OUTAGE_STREAK);
  return answered < RECOVERY_RUN && streak.length === OUTAGE_STREAK && streak.every((a) => a.technical) ? 'confirming' : undefined;
}
