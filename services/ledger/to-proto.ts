import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  BalanceSchema, SettlementSchema, TransactionSchema, type Balance, type Settlement, type SettlementItem, type Transaction,
} from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import type { BalanceFigures } from './balances.js';
import type { SettlementRecord } from './settlement-store.js';
import type { TransactionRecord } from './movements.js';

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

export function transactionToProto(t: TransactionRecord): Transaction {
  return create(TransactionSchema, {
    id: t.id,
    type: t.type,
    status: t.status,
    entityType: t.entityType,
    entityId: t.entityId,
    paymentId: opt(t.paymentId),
    amount: t.amount,
    currency: t.currency,
    feeAmount: t.feeAmount,
    netAmount: t.netAmount,
    providerName: opt(t.providerName),
    providerReference: opt(t.providerReference),
    paymentMethod: opt(t.paymentMethod),
    country: opt(t.country),
    processingTimeMs: opt(t.processingTimeMs),
    failureCode: opt(t.failureCode),
    settlementId: opt(t.settlementId),
    occurredAt: timestampFromDate(t.occurredAt),
    providerAccountId: opt(t.providerAccountId),
  });
}

function itemToProto(t: TransactionRecord): Omit<SettlementItem, '$typeName'> {
  return {
    transactionId: t.id,
    type: t.type,
    entityType: t.entityType,
    entityId: t.entityId,
    paymentId: opt(t.paymentId),
    amount: t.amount,
    feeAmount: t.feeAmount,
    netAmount: t.netAmount,
    providerReference: opt(t.providerReference),
    occurredAt: timestampFromDate(t.occurredAt),
  };
}

export function settlementToProto(s: SettlementRecord, items: TransactionRecord[] = []): Settlement {
  return create(SettlementSchema, {
    id: s.id,
    providerName: opt(s.providerName),
    settlementEntity: opt(s.settlementEntity),
    settlementReference: s.reference,
    currency: s.currency,
    grossAmount: s.grossAmount,
    feeAmount: s.feeAmount,
    netAmount: s.netAmount,
    transactionCount: s.transactionCount,
    periodStart: timestampFromDate(s.periodStart),
    periodEnd: timestampFromDate(s.periodEnd),
    status: s.status,
    settledAt: s.settledAt ? timestampFromDate(s.settledAt) : undefined,
    providerAccountId: s.providerAccountId,
    items: items.map(itemToProto),
  });
}

export function balanceToProto(b: BalanceFigures): Balance {
  return create(BalanceSchema, { ...b });
}
