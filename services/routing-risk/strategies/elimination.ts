import { probeDue, recentHealth, watchState } from './account-health.js';
import { percent } from './window-stats.js';
import type { LearningSettings, RankInput, Ranking, ScoredCandidate } from './types.js';

export interface Eliminated {
  ranked: ScoredCandidate[];
  /** Each moved account's reason, in words. */
  notes: string[];
  /** This payment probes an account whose newest attempt failed. */
  probe: boolean;
  /** An account other than the first is watched for recovery (account-health.ts's watchState): probes use the exploration budget. */
  watching: boolean;
}

/**
 * Accounts whose recent technical failures and time-outs cross the threshold go to the end, in
 * their order: never removed, so failover still reaches them when everything else declines. An
 * account whose newest attempt failed (eliminated, or only moved down by its failures) is probed
 * once every 1/`share` of the segment's attempts since (account-health.ts's probeDue), so its
 * recovery shows within a bounded number of payments; with every candidate unhealthy, the order stands.
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
  if (healthy.length === 0) return { ranked, notes: [], probe: false, watching: false };
  // The probe: the first account, other than the one the payment would start at, that is due.
  const ids = ranked.map((c) => c.account.providerAccountId);
  const others = [...out, ...healthy.slice(1)];
  const probed = others.find((c) => !input.probing?.has(c.account.providerAccountId)
    && probeDue(input.health, c.account.providerAccountId, ids.filter((id) => id !== c.account.providerAccountId), share));
  const watching = others.some((c) => watchState(input.health.get(c.account.providerAccountId)) !== undefined);
  const order = [...healthy, ...out];
  return { ranked: probed ? [probed, ...order.filter((c) => c !== probed)] : order, notes, probe: Boolean(probed), watching };
}

export const probeNote = (e: Eliminated, share: number): string =>
  `${e.ranked[0]!.account.providerName} first as a probe (one payment in ${Math.ceil(1 / share)} of its segment tests an account whose newest attempt failed)`;

/** The rule's static order, with unhealthy accounts moved to the end. */
export function rankByElimination(input: RankInput, s: LearningSettings, base: Ranking): Ranking {
  const e = eliminate(base.ranked, input, s, s.probeShare);
  if (e.notes.length === 0 && !e.probe) return { ...base, strategy: 'elimination', reason: `all healthy: ${base.reason}` };
  const head = e.probe ? probeNote(e, s.probeShare) : `${e.ranked[0]!.account.providerName} first`;
  return {
    strategy: 'elimination', ranked: e.ranked, reason: `${head}; ${e.notes.join('; ')}`, explored: e.probe,
    ...(e.probe && { probed: e.ranked[0]!.account.providerAccountId }),
  };
}
