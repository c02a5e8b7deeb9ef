import { timestampDate } from '@bufbuild/protobuf/wkt';
import type { Transaction } from '../../../proto/gen/svc/ledger/v1/ledger_pb.js';

// The contract's JSON shape of a ledger transaction, in the contract's field order. The provider
// account the list filters on is not a field of the contract's Transaction, so it is not shown.

export function transactionJson(t: Transaction): Record<string, unknown> {
  return {
    id: t.id,
    type: t.type,
    status: t.status,
    entity_type: t.entityType,
    entity_id: t.entityId,
    payment_id: t.paymentId ?? null,
    // Amounts are bigint in proto; the REST layer never admits any above 2^53-1.
    amount: Number(t.amount),
    currency: t.currency,
    fee_amount: Number(t.feeAmount),
    net_amount: Number(t.netAmount),
    provider_name: t.providerName ?? null,
    provider_reference: t.providerReference ?? null,
    payment_method: t.paymentMethod ?? null,
    country: t.country ?? null,
    processing_time_ms: t.processingTimeMs ?? null,
    failure_code: t.failureCode ?? null,
    settlement_id: t.settlementId ?? null,
    occurred_at: t.occurredAt ? timestampDate(t.occurredAt).toISOString() : null,
  };
}
