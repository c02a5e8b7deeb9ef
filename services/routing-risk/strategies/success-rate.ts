import { explorationNote, withExploration } from './exploration.js';
import { eliminate, probeNote } from './elimination.js';
import { estimate, percent, recentHealth, segmentLabel, type Estimate } from './window-stats.js';
import type { LearningSettings, RankInput, Ranking, ScoredCandidate, StrategyType } from './types.js';

/** Approvals over answered attempts across the trusted estimates (0 without any). */
function pooledRate(estimates: Map<string, Estimate>): number {
  let won = 0;
  let seen = 0;
  for (const e of estimates.values()) { won += e.counts.succeeded; seen += e.sample; }
  return seen === 0 ? 0 : won / seen;
}

/**
 * Each candidate's chance of success: its approval rate when it answers (finest trusted segment,
 * the long window) times its recent availability (1 − technical share, the short elimination
 * window). Kept apart so an outage weighs only while it lasts and recovery shows within minutes,
 * while a provider that keeps timing out a little still pays for it.
 */
export function scoredByRate(
  input: RankInput, s: LearningSettings,
): { ranked: ScoredCandidate[]; estimates: Map<string, Estimate>; pooled: number } {
  const estimates = new Map<string, Estimate>();
  for (const a of input.candidates) {
    const e = estimate(input.history, a.providerAccountId, s, input.nowMinute);
    if (e) estimates.set(a.providerAccountId, e);
  }
  const ranked = input.candidates.map((account): ScoredCandidate => {
    const e = estimates.get(account.providerAccountId);
    if (!e) return { account, score: null, sample: 0, note: `fewer than ${s.minSample} recent outcomes` };
    const h = recentHealth(input.history, account.providerAccountId, s, input.nowMinute);
    const note = `${percent(e.rate)} over ${e.sample} recent ${segmentLabel(input.segment, e.level)} payments`;
    return {
      account, score: e.rate * (1 - h.share), sample: e.sample,
      note: h.technical > 0 ? `${note}, ${percent(h.share)} technical failures lately` : note,
    };
  });
  // An account without a trusted rate sorts at the pooled rate of those with one: behind a proven
  // better account, ahead of a proven worse one. Ties keep the rule's static order (a stable sort).
  const pooled = pooledRate(estimates);
  ranked.sort((a, b) => (b.score ?? pooled) - (a.score ?? pooled));
  return { ranked, estimates, pooled };
}

/**
 * Exploration, then elimination, then the final order in words: "Adyen first: 94.1 % over 412
 * recent EUR Visa payments; Stripe 90.3 % over 388; 5 % exploration".
 */
export function finish(strategy: StrategyType, scored: ScoredCandidate[], input: RankInput, s: LearningSettings): Ranking {
  const explored = withExploration(scored, input, s);
  // A payment drawn to explore probes an eliminated account if there is one: one budget for both.
  const explores = s.explorationShare > 0;
  const e = eliminate(explored.ranked, input, s, explores ? explored.explored : undefined);
  const [first, ...rest] = e.ranked;
  if (!first) return { strategy, ranked: [], reason: 'no candidates', explored: false };
  const head = e.probe ? `${probeNote(e, explores ? s.explorationShare : s.probeShare)}: ${first.note}`
    : explored.explored && first === explored.ranked[0] ? `${first.account.providerName} first by exploration (${first.note})`
      : `${first.account.providerName} first: ${first.note}`;
  const reason = [head, ...rest.map((c) => `${c.account.providerName} ${c.note}`), explorationNote(s)].join('; ');
  return { strategy, ranked: e.ranked, reason, explored: explored.explored || e.probe };
}

/**
 * The best chance of success in the payment's finest trusted segment first, with exploration and
 * elimination. While no candidate has a trusted rate, the rule's static order decides.
 */
export function rankBySuccessRate(input: RankInput, s: LearningSettings, base: Ranking): Ranking {
  const { ranked, estimates } = scoredByRate(input, s);
  if (estimates.size === 0) {
    const r = finish('success_rate', base.ranked, input, { ...s, explorationShare: 0 });
    return { ...r, reason: `no trusted success rate yet (fewer than ${s.minSample} recent outcomes), the rule's order; ${r.reason}` };
  }
  return finish('success_rate', ranked, input, s);
}
