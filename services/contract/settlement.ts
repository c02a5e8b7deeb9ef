import type { Settlement, SettlementItem } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import { SETTLEMENT_STATUSES } from './enums.js';
import { asOneOf, iso, isoOrNull, orNull } from './json-values.js';
import { minorToJson } from './money.js';
import type { SettlementJson, SettlementWithItemsJson } from './resources.js';

// The contract's JSON shape of a provider settlement, in the contract's field order. The list and
// the settlement.created event carry it without items; retrieving one settlement adds `items`,
// whose fields are ours to define (docs/ledger.md, "Settlement items").

export function settlementItemJson(i: SettlementItem): Record<string, unknown> {
  return {
    transaction_id: i.transactionId,
    type: i.type,
    entity_type: i.entityType,
    entity_id: i.entityId,
    payment_id: orNull(i.paymentId),
    amount: minorToJson(i.amount),
    fee_amount: minorToJson(i.feeAmount),
    net_amount: minorToJson(i.netAmount),
    provider_reference: orNull(i.providerReference),
    occurred_at: isoOrNull(i.occurredAt),
  };
}

export function settlementJson(s: Settlement): SettlementJson;
export function settlementJson(s: Settlement, withItems: true): SettlementWithItemsJson;
export function settlementJson(s: Settlement, withItems = false): SettlementJson | SettlementWithItemsJson {
  const json: SettlementJson = {
    id: s.id,
    provider_name: orNull(s.providerName),
    settlement_entity: orNull(s.settlementEntity),
    settlement_reference: orNull(s.settlementReference),
    currency: s.currency,
    gross_amount: minorToJson(s.grossAmount),
    fee_amount: minorToJson(s.feeAmount),
    net_amount: minorToJson(s.netAmount),
    transaction_count: s.transactionCount,
    period_start: iso(s.periodStart),
    period_end: iso(s.periodEnd),
    status: asOneOf(SETTLEMENT_STATUSES, s.status),
    settled_at: isoOrNull(s.settledAt),
  };
  return withItems ? { ...json, items: s.items.map(settlementItemJson) } : json;
}
