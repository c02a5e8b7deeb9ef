import type { Account } from './journal.js';

/**
 * One currency's balance figures, derived from the journal's account totals (docs/ledger.md
 * defines each). Because every entry balances, the identities below hold by construction:
 *   processed_net = processed_gross - fees
 *   awaiting_provider_settlement = processed_net - settled_by_providers
 *   settled_by_providers - payouts_sent = what is left of the settled funds
 */
export interface BalanceFigures {
  currency: string;
  processedGross: bigint;
  fees: bigint;
  processedNet: bigint;
  settledByProviders: bigint;
  awaitingProviderSettlement: bigint;
  payoutsSent: bigint;
  note: string;
}

export const BALANCE_NOTE =
  'Derived from processed transactions and provider settlement reports. The service is not a custodian: ' +
  'funds are held by the providers and settled to the merchant; these figures are not an account balance.';

export type AccountTotals = Partial<Record<Account, bigint>>;

export function balanceOf(currency: string, totals: AccountTotals): BalanceFigures {
  const t = (a: Account) => totals[a] ?? 0n;
  // Income accounts carry credits (negative); the figures are shown as positive amounts.
  // Disputes are gross the provider took back (or gave back): the balance stays the provider's.
  const processedGross = -(t('sales') + t('adjustments') + t('disputes'));
  const fees = t('provider_fees');
  const payoutsSent = t('payouts') + t('payout_fees');
  return {
    currency,
    processedGross,
    fees,
    processedNet: processedGross - fees,
    settledByProviders: t('settled_funds') + payoutsSent,
    awaitingProviderSettlement: t('provider_receivable'),
    payoutsSent,
    note: BALANCE_NOTE,
  };
}
