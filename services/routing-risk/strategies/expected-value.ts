import { feeFor, formatMoney } from '../../contract/index.js';
import { finish, scoredByRate } from './success-rate.js';
import { percent } from './window-stats.js';
import type { LearningSettings, RankInput, Ranking, ScoredCandidate } from './types.js';

/**
 * Success chance × (amount − fee), in minor units: a cheaper account wins only while its approval
 * rate pays for the difference. An account without a trusted rate is valued at its prior (the pooled
 * rate times its availability, success-rate.ts): neither favoured nor starved, exploration gives it data.
 */
export function rankByExpectedValue(input: RankInput, s: LearningSettings, base: Ranking): Ranking {
  const { ranked, estimates, prior } = scoredByRate(input, s);
  if (estimates.size === 0) {
    const r = finish('expected_value', base.ranked, input, { ...s, explorationShare: 0 });
    return { ...r, reason: `no trusted success rate yet, the rule's order; ${r.reason}` };
  }
  const valued = ranked.map((c): ScoredCandidate => {
    const p = c.score ?? prior.get(c.account.providerAccountId)!;
    const net = input.amount - feeFor(c.account, input.amount);
    const value = p * Number(net);
    const money = (v: bigint) => formatMoney(v, input.segment.currency);
    const pooled = c.score === null ? ' pooled' : '';
    return { ...c, score: value, note: `${money(BigInt(Math.round(value)))} expected (${percent(p)}${pooled} of ${money(net)} after fees)` };
  });
  valued.sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
  return finish('expected_value', valued, input, s);
}
