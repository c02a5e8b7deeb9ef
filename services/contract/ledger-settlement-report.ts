import type { MessageInitShape } from '@bufbuild/protobuf';
import type { SettlementReportSchema } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import type { ProviderSettlement } from '../../proto/gen/svc/payments/v1/provider_settlements_pb.js';
import type { ProviderAccount } from '../../proto/gen/svc/routing/v1/provider_accounts_pb.js';

// One home for turning a provider's batch (as ProviderSettlementsService answers it) into the
// ledger's settlement report: the operator's import and sync (gateway/management) and payments'
// scheduled sync (jobs/settlement-sync.ts) hand the ledger the same thing.

export type SettlementReport = MessageInitShape<typeof SettlementReportSchema>;

const sum = (values: bigint[]) => values.reduce((a, b) => a + b, 0n);

/** payments' provider-neutral batch as the ledger's report for the account's scope; totals from its lines. */
export function settlementReportOf(account: ProviderAccount, s: ProviderSettlement): SettlementReport {
  const gross = sum(s.items.map((i) => i.amount));
  const fees = sum(s.items.map((i) => i.feeAmount)) + sum(s.fees.map((f) => f.amount));
  return {
    scope: { merchantId: account.merchantId, projectId: account.projectId, mode: account.mode },
    providerAccountId: account.id,
    providerName: account.providerName,
    settlementEntity: s.settlementEntity,
    reference: s.reference,
    currency: s.currency,
    status: s.status,
    periodStart: s.periodStart,
    periodEnd: s.periodEnd,
    settledAt: s.settledAt,
    items: s.items.map((i) => ({
      type: i.type, entityId: i.entityId, providerReference: i.providerReference, paymentReference: i.paymentReference,
      amount: i.amount, feeAmount: i.feeAmount,
    })),
    fees: s.fees.map((f) => ({ amount: f.amount, description: f.description })),
    grossAmount: gross,
    feeAmount: fees,
    netAmount: gross - fees,
  };
}
