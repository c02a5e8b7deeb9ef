import type { Balance } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import { minorToJson } from './money.js';
import type { BalanceJson, BalancesJson } from './resources.js';

// The contract's JSON shape of one currency's balance figures (definitions: docs/ledger.md).

export function balanceJson(b: Balance): BalanceJson {
  return {
    currency: b.currency,
    processed_gross: minorToJson(b.processedGross),
    fees: minorToJson(b.fees),
    processed_net: minorToJson(b.processedNet),
    settled_by_providers: minorToJson(b.settledByProviders),
    awaiting_provider_settlement: minorToJson(b.awaitingProviderSettlement),
    payouts_sent: minorToJson(b.payoutsSent),
    note: b.note,
  };
}

/** `GET /v1/balances`: the service holds no funds, and says so in every answer. */
export function balancesJson(balances: Balance[]): BalancesJson {
  return { custodian: false, data: balances.map(balanceJson) };
}
