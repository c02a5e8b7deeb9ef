import type {
  LearningSettings, MinuteCounts, OutcomeCounts, Segment, SegmentHistory, SegmentLevel,
} from './types.js';

export type OutcomeKind = keyof OutcomeCounts;

/**
 * Outcomes are counted in buckets of this many minutes, each stamped with its first minute
 * (migration 0008): fine enough for an outage to show in the bucket under way, coarse enough that
 * the planning read's two hours are 24 rows per account and segment level.
 */
export const BUCKET_MINUTES = 5;

/** The bucket a minute falls in, by its first minute. */
export const bucketOf = (minute: number): number => Math.floor(minute / BUCKET_MINUTES) * BUCKET_MINUTES;

/**
 * How routing weighs a settled attempt (attempt.settled's status and failure category). Migration
 * 0008's trigger classifies the same way in SQL; the outcome-window test holds the two together.
 * Policy refusals are the merchant's or the card's, like hard declines; a failure without a
 * category is the provider's, as a silent one is.
 */
export function outcomeKind(status: string, failureCategory: string | null | undefined): OutcomeKind {
  if (status !== 'failed') return 'succeeded';
  if (failureCategory === 'hard' || failureCategory === 'policy') return 'hard';
  if (failureCategory === 'soft') return 'soft';
  return 'technical';
}

export const EMPTY: OutcomeCounts = Object.freeze({ succeeded: 0, soft: 0, hard: 0, technical: 0 });

/** Outcomes that speak about the provider: hard declines left out. */
export const weighed = (c: OutcomeCounts): number => c.succeeded + c.soft + c.technical;

/**
 * The newest buckets starting inside `minutes` of now, summed until `attempts` weighed outcomes
 * are reached: a sliding window by time and by count, whichever is smaller (a busy segment by
 * count, a quiet one by time). The bucket that crosses the count is taken whole.
 */
export function windowed(history: MinuteCounts[] | undefined, minutes: number, attempts: number, nowMinute: number): OutcomeCounts {
  if (!history || history.length === 0) return EMPTY;
  const recent = history.filter((m) => m.minute > nowMinute - minutes && m.minute <= nowMinute)
    .sort((a, b) => b.minute - a.minute);
  const sum = { succeeded: 0, soft: 0, hard: 0, technical: 0 };
  for (const m of recent) {
    if (weighed(sum) >= attempts) break;
    sum.succeeded += m.succeeded;
    sum.soft += m.soft;
    sum.hard += m.hard;
    sum.technical += m.technical;
  }
  return sum;
}

export interface Estimate {
  level: SegmentLevel;
  counts: OutcomeCounts;
  /** Approvals over answered attempts (succeeded and soft-declined): technical failures are availability's (account-health.ts). */
  rate: number;
  sample: number;
}

const LEVELS: SegmentLevel[] = [0, 1, 2];

/**
 * An account's approval rate in the payment's finest segment that has `minSample` answered attempts
 * in the window, falling back to coarser segments; undefined when none has.
 */
export function estimate(history: SegmentHistory, accountId: string, s: LearningSettings, nowMinute: number): Estimate | undefined {
  const levels = history.get(accountId);
  if (!levels) return undefined;
  for (const level of LEVELS) {
    const counts = windowed(levels.get(level), s.windowMinutes, s.windowAttempts, nowMinute);
    const sample = counts.succeeded + counts.soft;
    if (sample >= s.minSample && sample > 0) return { level, counts, rate: counts.succeeded / sample, sample };
  }
  return undefined;
}

/** The segment a level stands for, in words: "EUR Visa DE card", "EUR DE card", "EUR card". */
export function segmentLabel(segment: Segment, level: SegmentLevel): string {
  const parts = [segment.currency];
  if (level === 0 && segment.cardNetwork) parts.push(segment.cardNetwork[0]!.toUpperCase() + segment.cardNetwork.slice(1));
  if (level <= 1 && segment.country) parts.push(segment.country);
  parts.push(segment.method);
  return parts.join(' ');
}

export const percent = (rate: number): string => `${(rate * 100).toFixed(1)} %`;
