import type { ProviderAccount } from '../provider-account.js';
import { stickyShare } from '../../platform/sticky-share.js';
import type { RankInput, Ranking } from './types.js';

/** The weight entry naming an account: its own id, else its provider's code. */
function weightOf(weights: Record<string, number>, a: ProviderAccount): number {
  return weights[a.providerAccountId] ?? weights[a.providerCode] ?? 0;
}

/**
 * Weights are percentages of the payments that start at each account (a migration between
 * providers, a contract's volume). The arm is drawn from the payment id, so the same payment always
 * starts at the same account; the others follow in the rule's order for failover. Weights of
 * candidates that cannot take this payment are shared among those that can, in proportion.
 */
export function rankByVolumeSplit(input: RankInput, weights: Record<string, number>): Ranking {
  const weighted = input.candidates.map((account) => ({ account, weight: weightOf(weights, account) }));
  const total = weighted.reduce((n, w) => n + w.weight, 0);
  if (total === 0) {
    return {
      strategy: 'volume_split',
      ranked: input.candidates.map((account) => ({ account, score: 0, note: 'no weight' })),
      reason: 'no candidate of this payment has a weight: the rule\'s order',
      explored: false,
    };
  }
  let draw = stickyShare(input.paymentId, 'split') * total;
  let chosen = weighted.find((w) => w.weight > 0)!;
  for (const w of weighted) {
    if (draw < w.weight) { chosen = w; break; }
    draw -= w.weight;
  }
  const ordered = [chosen, ...weighted.filter((w) => w !== chosen)];
  const share = (w: number) => `${((w / total) * 100).toFixed(0)} %`;
  return {
    strategy: 'volume_split',
    ranked: ordered.map((w) => ({ account: w.account, score: w.weight, note: `${share(w.weight)} of payments` })),
    reason: `${chosen.account.providerName} first: this payment's arm of the split (${
      weighted.map((w) => `${w.account.providerName} ${share(w.weight)}`).join(', ')})`,
    explored: false,
  };
}
