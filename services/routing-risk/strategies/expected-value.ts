import { feeFor } from '../../contract/index.js';
import { withElimination } from './elimination.js';
import { explorationNote, withExploration } from './exploration.js';
import { scoredByRate } from './success-rate.js';
import { percent } from './window-stats.js';
import type { LearningSettings, RankInput, Ranking, ScoredCandidate } from './types.js';

/**
 * Success probability × (amount − fee), in minor units: a cheaper account wins only while its
 * approval rate pays for the difference. An account without a trusted rate is valued at the pooled
 * rate of those with one (neither favoured nor starved: exploration gives it data).
 */
export function rankByExpectedValue(input: RankInput, s: LearningSettings, base: Ranking): Ranking {
  const { ranked, estimates, pooled } = scoredByRate(input, s);
  if (estimates.size === 0) {
    return withElimination({ ...base, strategy: 'expected_value', reason: `no trusted success rate yet: ${base.reason}` }, input, s);
  }
  const valued = ranked.map((c): ScoredCandidate => {
    const p = c.score ?? pooled;
    const net = Number(input.amount - feeFor(c.account, input.amount));
    const value = p * net;
    return { ...c, score: value, note: `${value.toFixed(0)} expected (${percent(p)}${c.score === null ? ' pooled' : ''} of ${net} after fees)` };
  });
  valued.sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
  const explored = withExploration(valued, input, s);
  const [first, ...rest] = explored.ranked;
  const reason = [
    `${first!.account.providerName} first${explored.explored ? ' by exploration' : ''}: ${first!.note}`,
    ...rest.map((c) => `${c.account.providerName} ${c.note}`), explorationNote(s),
  ].join('; ');
  return withElimination({ strategy: 'expected_value', ranked: explored.ranked, reason, explored: explored.explored }, input, s);
}
