import { probeDue, recentHealth } from './account-health.js';
import { percent } from './window-stats.js';
import type { LearningSettings, RankInput, Ranking, ScoredCandidate } from './types.js';

export interface Eliminated {
  ranked: ScoredCandidate[];
  /** Each moved account's reason, in words. */
  notes: string[];
  /** This payment probes the first eliminated account. */
  probe: boolean;
}

/**
 * Accounts whose recent technical failures and time-outs cross the threshold go to the end, in
 * their order: never removed, so failover still reaches them when everything else declines. Once
 * every 1/`share` of the segment's attempts since it was last tried (account-health.ts's probeDue),
 * a payment starts at the first of them, so its recovery shows within a bounded number of payments;
 * with every candidate unhealthy, the order stands.
 */
export function eliminate(ranked: ScoredCandidate[], input: RankInput, s: LearningSettings, share: number): Eliminated {
  const healthy: ScoredCandidate[] = [];
  const out: ScoredCandidate[] = [];
  const notes: string[] = [];
  for (const c of ranked) {
    const h = recentHealth(input.health.get(c.account.providerAccountId), s);
    if (h.sample >= s.eliminationMinSample && h.share >= s.eliminationThreshold) {
      const why = `${percent(h.share)} technical failures in its last ${h.sample} attempts`;
      out.push({ ...c, note: `${c.note}, moved to the end (${why})` });
      notes.push(`${c.account.providerName} moved to the end (${why})`);
    } else healthy.push(c);
  }
  if (out.length === 0 || healthy.length === 0) return { ranked, notes: [], probe: false };
  const others = ranked.filter((c) => c !== out[0]).map((c) => c.account.providerAccountId);
  const probe = probeDue(input.health, out[0]!.account.providerAccountId, others, share);
  return { ranked: probe ? [out[0]!, ...healthy, ...out.slice(1)] : [...healthy, ...out], notes, probe };
}

export const probeNote = (e: Eliminated, share: number): string =>
  `${e.ranked[0]!.account.providerName} first as a probe (one payment in ${Math.ceil(1 / share)} of its segment tests an eliminated account)`;

/** The rule's static order, with unhealthy accounts moved to the end. */
export function rankByElimination(input: RankInput, s: LearningSettings, base: Ranking): Ranking {
  const e = eliminate(base.ranked, input, s, s.probeShare);
  if (e.notes.length === 0) return { ...base, strategy: 'elimination', reason: `all healthy: ${base.reason}` };
  const head = e.probe ? probeNote(e, s.probeShare) : `${e.ranked[0]!.account.providerName} first`;
  return { strategy: 'elimination', ranked: e.ranked, reason: `${head}; ${e.notes.join('; ')}`, explored: e.probe };
}
