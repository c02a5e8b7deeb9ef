import { stickyShare } from '../../platform/sticky-share.js';
import type { LearningSettings, RankInput, ScoredCandidate } from './types.js';

/**
 * A bounded share of payments (sticky by payment id) starts at the least-known other candidate
 * instead of the best, so a rate that drifted or a new account is seen at all; the best stays
 * second, so the payment's failover still reaches it. Returns the order and whether it explored.
 */
export function withExploration(
  ranked: ScoredCandidate[], input: RankInput, s: LearningSettings,
): { ranked: ScoredCandidate[]; explored: boolean } {
  if (ranked.length < 2 || stickyShare(input.paymentId, 'explore') >= s.explorationShare) return { ranked, explored: false };
  let pick = ranked[1]!;
  for (const c of ranked.slice(2)) if ((c.sample ?? 0) < (pick.sample ?? 0)) pick = c;
  return { ranked: [pick, ...ranked.filter((c) => c !== pick)], explored: true };
}

export const explorationNote = (s: LearningSettings): string =>
  `${(s.explorationShare * 100).toFixed(0)} % exploration`;
