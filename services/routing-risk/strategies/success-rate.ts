import { explorationNote, withExploration } from './exploration.js';
import { eliminate, probeNote } from './elimination.js';
import { pooledTechnicalShare, recentHealth } from './account-health.js';
import { estimate, percent, segmentLabel, type Estimate } from './window-stats.js';
import type { LearningSettings, RankInput, Ranking, ScoredCandidate, StrategyType } from './types.js';

/** Approvals over answered attempts across the trusted estimates (0 without any). */
function pooledRate(estimates: Map<string, Estimate>): number {
  let won = 0;
  let seen = 0;
  for (const e of estimates.values()) { won += e.counts.succeeded; seen += e.sample; }
  return seen === 0 ? 0 : won / seen;
}

/** An account's availability: 1 − its technical share lately, or the pooled share while it has too few attempts. */
function availability(input: RankInput, account: string, s: LearningSettings, pooledTechnical: number) {
  const h = recentHealth(input.health.get(account), s);
  return { h, available: 1 - (h.sample >= s.eliminationMinSample ? h.share : pooledTechnical) };
}

/**
 * Each candidate's chance of success: its approval rate when it answers (finest trusted segment,
 * the long window) times its availability (1 − technical share of its newest attempts,
 * account-health.ts). Kept apart so an outage weighs only while it lasts and recovery shows as soon
 * as its probes are answered, while a provider that keeps timing out a little still pays for it.
 * An account without a trusted rate is scored on the same scale (like with like): the pooled
 * approval rate of those with one times its own availability, or the pooled one while it has too
 * few attempts. So it sorts behind a proven better account and ahead of a proven worse one.
 */
export function scoredByRate(
  input: RankInput, s: LearningSettings,
): { ranked: ScoredCandidate[]; estimates: Map<string, Estimate>; prior: Map<string, number> } {
  const estimates = new Map<string, Estimate>();
  for (const a of input.candidates) {
    const e = estimate(input.history, a.providerAccountId, s, input.nowMinute);
    if (e) estimates.set(a.providerAccountId, e);
  }
  const pooled = pooledRate(estimates);
  const pooledTechnical = pooledTechnicalShare(input.health, input.candidates.map((a) => a.providerAccountId), s);
  const prior = new Map<string, number>();
  const ranked = input.candidates.map((account): ScoredCandidate => {
    const { h, available } = availability(input, account.providerAccountId, s, pooledTechnical);
    const lately = h.technical > 0 ? `, ${percent(h.share)} technical failures lately` : '';
    const e = estimates.get(account.providerAccountId);
    if (!e) {
      prior.set(account.providerAccountId, pooled * available);
      return { account, score: null, sample: 0, note: `fewer than ${s.minSample} recent outcomes` };
    }
    const note = `${percent(e.rate)} over ${e.sample} recent ${segmentLabel(input.segment, e.level)} payments`;
    return { account, score: e.rate * available, sample: e.sample, note: `${note}${lately}` };
  });
  // Ties keep the rule's static order (a stable sort).
  const sortKey = (c: ScoredCandidate) => c.score ?? prior.get(c.account.providerAccountId)!;
  ranked.sort((a, b) => sortKey(b) - sortKey(a));
  return { ranked, estimates, prior };
}

/**
 * Elimination, then exploration among the healthy, then the final order in words: "Adyen first:
 * 94.1 % over 412 recent EUR Visa payments; Stripe 90.3 % over 388; 5 % exploration". Probes
 * (elimination.ts) use the exploration share's spacing, and while an account is eliminated or
 * watched for recovery, nothing explores: one budget for both.
 */
export function finish(strategy: StrategyType, scored: ScoredCandidate[], input: RankInput, s: LearningSettings): Ranking {
  // Without exploration (a rule's explorationShare 0, or no trusted rate yet) probes keep probeShare's pace.
  const share = s.explorationShare > 0 ? s.explorationShare : s.probeShare;
  const e = eliminate(scored, input, s, share);
  const explored = e.notes.length === 0 && !e.watching ? withExploration(scored, input, s) : { ranked: e.ranked, explored: false };
  const [first, ...rest] = explored.ranked;
  if (!first) return { strategy, ranked: [], reason: 'no candidates', explored: false };
  const head = e.probe ? `${probeNote(e, share)}: ${first.note}`
    : explored.explored ? `${first.account.providerName} first by exploration (${first.note})`
      : `${first.account.providerName} first: ${first.note}`;
  const reason = [head, ...rest.map((c) => `${c.account.providerName} ${c.note}`), explorationNote(s)].join('; ');
  return {
    strategy, ranked: explored.ranked, reason, explored: explored.explored || e.probe,
    ...(e.probe && { probed: first.account.providerAccountId }),
  };
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
