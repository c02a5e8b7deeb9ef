import type { Transaction } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import { iso, orNull } from './json-values.js';
import { minorToJson } from './money.js';
import type { TransactionJson } from './resources.js';

// The contract's JSON shape of a ledger transaction, in the contract's field order. The provider
// account the list filters on is not a field of the contract's Transaction, so it is not shown.

export function transactionJson(t: Transaction): TransactionJson {
  return {
    id: t.id,
    type: t.type,
    status: t.status,
    entity_type: t.entityType,
    entity_id: t.entityId,
    payment_id: orNull(t.paymentId),
    amount: minorToJson(t.amount),
    currency: t.currency,
    fee_amount: minorToJson(t.feeAmount),
    net_amount: minorToJson(t.netAmount),
    provider_name: orNull(t.providerName),
    provider_reference: orNull(t.providerReference),
    payment_method: orNull(t.paymentMethod),
    country: orNull(t.country),
    processing_time_ms: orNull(t.processingTimeMs),
    failure_code: orNull(t.failureCode),
    settlement_id: orNull(t.settlementId),
    occurred_at: iso(t.occurredAt),
  };
}
