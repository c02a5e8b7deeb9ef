import { stickyShare } from './sticky-share.js';
import { percent, recentHealth } from './window-stats.js';
import type { LearningSettings, RankInput, Ranking, ScoredCandidate } from './types.js';

/**
 * Accounts whose recent technical failures and time-outs cross the threshold go to the end, in
 * their order: never removed, so failover still reaches them when everything else declines. A
 * probe share of payments (sticky by payment id) starts at the first of them, so recovery shows
 * in its counts; with every candidate unhealthy, the order stands.
 */
export function withElimination(ranking: Ranking, input: RankInput, s: LearningSettings): Ranking {
  const healthy: ScoredCandidate[] = [];
  const out: ScoredCandidate[] = [];
  const notes: string[] = [];
  for (const c of ranking.ranked) {
    const h = recentHealth(input.history, c.account.providerAccountId, s, input.nowMinute);
    if (h.sample >= s.eliminationMinSample && h.share >= s.eliminationThreshold) {
      out.push({ ...c, note: `${c.note}; moved to the end: ${h.technical} technical failures in its last ${h.sample}` });
      notes.push(`${c.account.providerName} moved to the end (${percent(h.share)} technical failures in its last ${h.sample} attempts)`);
    } else healthy.push(c);
  }
  if (out.length === 0 || healthy.length === 0) return ranking;
  const probe = stickyShare(input.paymentId, 'probe') < s.probeShare;
  const ranked = probe ? [out[0]!, ...healthy, ...out.slice(1)] : [...healthy, ...out];
  const reason = probe
    ? `${out[0]!.account.providerName} first as a probe (${(s.probeShare * 100).toFixed(0)} % of payments test an eliminated account); ${notes.join('; ')}`
    : `${ranking.reason}; ${notes.join('; ')}`;
  return { ...ranking, ranked, reason, explored: ranking.explored || probe };
}

/** The rule's static order, with unhealthy accounts moved to the end. */
export function rankByElimination(input: RankInput, s: LearningSettings, base: Ranking): Ranking {
  return withElimination({ ...base, strategy: 'elimination' }, input, s);
}
