import type { Balance } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import type { BalanceJson, BalancesJson } from './resources.js';

// The contract's JSON shape of one currency's balance figures (definitions: docs/ledger.md).

export function balanceJson(b: Balance): BalanceJson {
  return {
    currency: b.currency,
    processed_gross: Number(b.processedGross),
    fees: Number(b.fees),
    processed_net: Number(b.processedNet),
    settled_by_providers: Number(b.settledByProviders),
    awaiting_provider_settlement: Number(b.awaitingProviderSettlement),
    payouts_sent: Number(b.payoutsSent),
    note: b.note,
  };
}

/** `GET /v1/balances`: the service holds no funds, and says so in every answer. */
export function balancesJson(balances: Balance[]): BalancesJson {
  return { custodian: false, data: balances.map(balanceJson) };
}
