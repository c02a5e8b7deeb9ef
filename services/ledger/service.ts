import type { ConnectRouter } from '@connectrpc/connect';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { LedgerService, type SettlementReport as ReportMessage } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import { isOneOf, SETTLEMENT_STATUSES, TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../contract/enums.js';
import type { Clock } from '../platform/clock.js';
import { pageLimit, requireScope } from '../platform/request-guards.js';
import { invalidField, serviceError } from '../contract/index.js';
import type { DemoSettlement } from './demo-settlement.js';
import type { SettlementStore } from './settlement-store.js';
import type { ReportItem, SettlementReport } from './settlement-report.js';
import type { SettlementIngestion } from './settlements.js';
import type { LedgerStore } from './store.js';
import { balanceToProto, settlementToProto, transactionToProto } from './to-proto.js';

function reportOf(m: ReportMessage | undefined): SettlementReport {
  if (!m) throw invalidField('report', 'report is required');
  return {
    scope: requireScope(m.scope),
    providerAccountId: m.providerAccountId,
    providerName: m.providerName ?? null,
    settlementEntity: m.settlementEntity ?? null,
    reference: m.reference,
    currency: m.currency,
    status: m.status as SettlementReport['status'],
    periodStart: m.periodStart ? timestampDate(m.periodStart) : new Date(NaN),
    periodEnd: m.periodEnd ? timestampDate(m.periodEnd) : new Date(NaN),
    settledAt: m.settledAt ? timestampDate(m.settledAt) : null,
    items: m.items.map((i) => ({
      type: i.type as ReportItem['type'], entityId: i.entityId, providerReference: i.providerReference,
      paymentReference: i.paymentReference, amount: i.amount, feeAmount: i.feeAmount,
    })),
    fees: m.fees.map((f) => ({ amount: f.amount, description: f.description })),
    grossAmount: m.grossAmount,
    feeAmount: m.feeAmount,
    netAmount: m.netAmount,
  };
}

export interface LedgerServiceDeps {
  store: LedgerStore;
  settlements: SettlementStore;
  ingestion: SettlementIngestion;
  demo: DemoSettlement;
  clock: Clock;
}

export function routes(deps: LedgerServiceDeps) {
  return (router: ConnectRouter) => {
    router.service(LedgerService, {
      async listTransactions(req) {
        const scope = requireScope(req.scope);
        const limit = pageLimit(req.limit);
        if (req.type !== undefined && !isOneOf(TRANSACTION_TYPES, req.type)) throw invalidField('type', `type "${req.type}" is not a transaction type`);
        const unknown = req.statuses.find((s) => !isOneOf(TRANSACTION_STATUSES, s));
        if (unknown !== undefined) throw invalidField('status', `status "${unknown}" is not a transaction status`);
        const { transactions, hasMore } = await deps.store.listTransactions(scope, {
          type: req.type,
          statuses: req.statuses,
          currency: req.currency,
          providerAccountId: req.providerAccountId,
          occurredFrom: req.occurredFrom && timestampDate(req.occurredFrom),
          occurredTo: req.occurredTo && timestampDate(req.occurredTo),
          startingAfter: req.startingAfter,
          limit,
        });
        return { transactions: transactions.map(transactionToProto), hasMore };
      },

      async getBalances(req) {
        const balances = await deps.store.balances(requireScope(req.scope));
        return { balances: balances.map(balanceToProto) };
      },

      async listSettlements(req) {
        const scope = requireScope(req.scope);
        if (req.status !== undefined && !isOneOf(SETTLEMENT_STATUSES, req.status)) {
          throw invalidField('status', `status "${req.status}" is not a settlement status`);
        }
        const list = await deps.settlements.list(scope, { status: req.status, providerAccountId: req.providerAccountId });
        return { settlements: list.map((s) => settlementToProto(s)) };
      },

      async getSettlement(req) {
        const found = await deps.settlements.get(requireScope(req.scope), req.id);
        if (!found) throw serviceError('resource_not_found', `No settlement ${req.id}`, { param: 'id' });
        return { settlement: settlementToProto(found.settlement, found.items) };
      },

      async getSettledFunds(req) {
        const scope = requireScope(req.scope);
        if (!/^[A-Z]{3}$/.test(req.currency)) throw invalidField('currency', 'currency must be an upper-case ISO 4217 code');
        const [balance] = await deps.store.balances(scope, req.currency);
        return {
          currency: req.currency,
          settledByProviders: balance?.settledByProviders ?? 0n,
          payoutsSent: balance?.payoutsSent ?? 0n,
        };
      },

      async ingestSettlementReport(req) {
        const report = reportOf(req.report);
        const { settlement, changed } = await deps.ingestion.ingest(report, deps.clock.now());
        return { settlement: settlementToProto(settlement), changed };
      },

      async ingestSettlementReports(req) {
        const results = await deps.ingestion.ingestAll(req.reports.map(reportOf), deps.clock.now());
        return { results: results.map(({ settlement, changed }) => ({ settlement: settlementToProto(settlement), changed })) };
      },

      async runSettlementCycle(req) {
        const now = deps.clock.now();
        const created = await deps.demo.runCycle(req.asOf ? timestampDate(req.asOf) : now, now);
        return { settlements: created.map((s) => settlementToProto(s)) };
      },
    });
  };
}
