import { feeFor, formatMoney } from '../../contract/index.js';
import type { ProviderAccount } from '../provider-account.js';
import type { RankInput, Ranking } from './types.js';

// Connected accounts before demo ones: a test-mode project that connected its provider's sandbox
// wants its payments there, the demo providers remaining behind it for failover. (Live mode has
// connected accounts only.)
export function cheapestFirst(amount: bigint) {
  return (a: ProviderAccount, b: ProviderAccount): number => {
    if (a.connected !== b.connected) return a.connected ? -1 : 1;
    const diff = feeFor(a, amount) - feeFor(b, amount);
    return diff !== 0n ? (diff < 0n ? -1 : 1) : a.providerCode.localeCompare(b.providerCode);
  };
}

const names = (accounts: ProviderAccount[]) => accounts.map((a) => a.providerName).join(', then ');

/** The rule's own order: the merchant listed the providers in the order to try them. */
export function rankByPriority(input: RankInput): Ranking {
  return {
    strategy: 'priority',
    ranked: input.candidates.map((account, i) => ({ account, score: null, note: `listed ${i + 1}` })),
    reason: input.candidates.length > 0 ? `the rule's order: ${names(input.candidates)}` : 'no candidates',
    explored: false,
  };
}

/** Lowest fee for this amount first (connected accounts before demo ones). */
export function rankByCost(input: RankInput): Ranking {
  const sorted = [...input.candidates].sort(cheapestFirst(input.amount));
  return {
    strategy: 'cheapest',
    ranked: sorted.map((account) => {
      const fee = feeFor(account, input.amount);
      const money = (v: bigint) => formatMoney(v, input.segment.currency);
      return { account, score: Number(fee), note: `fee ${money(fee)} on ${money(input.amount)}` };
    }),
    reason: sorted.length > 0 ? `cheapest first for this amount: ${names(sorted)}` : 'no candidates',
    explored: false,
  };
}
