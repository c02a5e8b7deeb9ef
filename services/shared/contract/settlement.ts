import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { Settlement, SettlementItem } from '../../../proto/gen/svc/ledger/v1/ledger_pb.js';

// The contract's JSON shape of a provider settlement, in the contract's field order. The list and
// the settlement.created event carry it without items; retrieving one settlement adds `items`,
// whose fields are ours to define (docs/ledger.md, "Settlement items").

const iso = (t: Timestamp | undefined): string | null => (t ? timestampDate(t).toISOString() : null);

export function settlementItemJson(i: SettlementItem): Record<string, unknown> {
  return {
    transaction_id: i.transactionId,
    type: i.type,
    entity_type: i.entityType,
    entity_id: i.entityId,
    payment_id: i.paymentId ?? null,
    amount: Number(i.amount),
    fee_amount: Number(i.feeAmount),
    net_amount: Number(i.netAmount),
    provider_reference: i.providerReference ?? null,
    occurred_at: iso(i.occurredAt),
  };
}

export function settlementJson(s: Settlement, withItems = false): Record<string, unknown> {
  const json: Record<string, unknown> = {
    id: s.id,
    provider_name: s.providerName ?? null,
    settlement_entity: s.settlementEntity ?? null,
    settlement_reference: s.settlementReference ?? null,
    currency: s.currency,
    gross_amount: Number(s.grossAmount),
    fee_amount: Number(s.feeAmount),
    net_amount: Number(s.netAmount),
    transaction_count: s.transactionCount,
    period_start: iso(s.periodStart),
    period_end: iso(s.periodEnd),
    status: s.status,
    settled_at: iso(s.settledAt),
  };
  if (withItems) json.items = s.items.map(settlementItemJson);
  return json;
}
