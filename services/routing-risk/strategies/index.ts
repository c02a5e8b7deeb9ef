// Routing strategies: pure functions that order a rule's eligible accounts (priority,
// cheapest, volume split, success rate, elimination, expected value) from the windowed outcome
// history and each account's newest attempts (its health) that the planning read returns, each
// with scores and a reason in words; and the validation of a rule's strategy. No I/O here: the planner, the Postgres read and the simulator share them.
export { rank } from './rank.js';
export { cheapestFirst } from './static-order.js';
export { DEFAULT_SETTINGS, READ_WINDOW_MINUTES, STRATEGY_TYPES, settingsOf, strategyProblem } from './strategy-config.js';
export { BUCKET_MINUTES, bucketOf, estimate, outcomeKind, windowed, type OutcomeKind } from './window-stats.js';
export { HEALTH_READ_ATTEMPTS, HEALTH_READ_MINUTES, recentHealth } from './account-health.js';
export type {
  HealthHistory, LearningSettings, MinuteCounts, OutcomeCounts, RankInput, Ranking, ScoredCandidate, Segment, SegmentHistory,
  RecentAttempt, SegmentLevel, StrategyConfig, StrategyType,
} from './types.js';
