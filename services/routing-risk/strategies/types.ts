import type { ProviderAccount } from '../provider-account.js';

/**
 * One of an account's newest attempts in the payment's method and currency, newest first, as the
 * planning read returns them (history-read.ts's healthColumn): its age by the database's clock, and
 * whether it was a technical failure or time-out (hard declines are the card's and are not read).
 */
export interface RecentAttempt {
  ageSeconds: number;
  technical: boolean;
}

/** Per account, its newest attempts (up to HEALTH_READ_ATTEMPTS within HEALTH_READ_MINUTES), newest first. */
export type HealthHistory = Map<string, RecentAttempt[]>;

/** How one routing rule orders its eligible accounts (routing_rules.strategy; null there: priority). */
export type StrategyConfig =
  | { type: 'priority' }
  | { type: 'cheapest' }
  | { type: 'volume_split'; weights: Record<string, number> }
  | { type: 'success_rate'; settings?: Partial<LearningSettings> }
  | { type: 'elimination'; settings?: Partial<LearningSettings> }
  | { type: 'expected_value'; settings?: Partial<LearningSettings> };

export type StrategyType = StrategyConfig['type'];

/** The knobs of the strategies that learn from outcomes; defaults in strategy-config.ts. */
export interface LearningSettings {
  /** Success-rate window: outcomes newer than this... */
  windowMinutes: number;
  /** ...and at most this many of them, newest first. */
  windowAttempts: number;
  /** Fewer counted outcomes than this in a segment: its rate is not trusted, a coarser segment is tried. */
  minSample: number;
  /** Share of payments (sticky per payment id) routed to a less-known account, 0 to 0.2. */
  explorationShare: number;
  /** Elimination window, shorter: an outage must show within minutes. */
  eliminationMinutes: number;
  eliminationAttempts: number;
  /** Technical failures and time-outs over this share of recent attempts move the account to the end. */
  eliminationThreshold: number;
  /** Fewest recent attempts before an account can be eliminated. */
  eliminationMinSample: number;
  /** Share of payments that still try an eliminated account first, to see it recover. */
  probeShare: number;
}

/** Outcomes as routing weighs them: a hard decline is the card's doing and never the provider's. */
export interface OutcomeCounts {
  succeeded: number;
  soft: number;
  hard: number;
  technical: number;
}

/** One bucket of outcomes (BUCKET_MINUTES, stamped with its first minute) of one account in one segment level. */
export interface MinuteCounts extends OutcomeCounts {
  minute: number;
}

/** 0: method, currency, country and card network; 1: method, currency and country; 2: method and currency. */
export type SegmentLevel = 0 | 1 | 2;

/** What the planning read returns for a payment: per account, per segment level, its minutes (any order). */
export type SegmentHistory = Map<string, Map<SegmentLevel, MinuteCounts[]>>;

/** The payment's segment, in words for the reasons. */
export interface Segment {
  method: string;
  currency: string;
  country?: string;
  cardNetwork?: string;
}

export interface RankInput {
  /** The eligible candidates in the rule's static order (the rule's list, or cheapest first). */
  candidates: ProviderAccount[];
  amount: bigint;
  paymentId: string;
  segment: Segment;
  history: SegmentHistory;
  /** Each candidate's newest attempts in the payment's method and currency (account-health.ts). */
  health: HealthHistory;
  /** Accounts with a probe in flight from this process (probes-in-flight.ts): not probed again until its outcome is read. */
  probing?: ReadonlySet<string>;
  /** Planning time, in whole minutes since the epoch. */
  nowMinute: number;
}

export interface ScoredCandidate {
  account: ProviderAccount;
  /** The strategy's score (a rate, a weight, an expected value in minor units); null: not scored. */
  score: number | null;
  /** Outcomes the score was computed over (learning strategies). */
  sample?: number;
  note: string;
}

export interface Ranking {
  strategy: StrategyType;
  ranked: ScoredCandidate[];
  /** The order in words, first account first. */
  reason: string;
  /** This payment took the exploration or probe share (a learning strategy's deliberate non-best first). */
  explored: boolean;
  /** The account this payment probes, when it does. */
  probed?: string;
}
