import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Client } from '@connectrpc/connect';
import type { LedgerService } from '../../proto/gen/svc/ledger/v1/ledger_pb.js';
import {
  balancesJson, settlementJson, transactionJson,
} from '../../services/contract/index.js';
import { DomainError } from '../../services/contract/index.js';
import { scopeOf } from '../auth/authenticate.js';
import type { Handlers } from './handlers.js';
import { isOneOf, SETTLEMENT_STATUSES } from '../../services/contract/enums.js';
import { decodeCursor, page } from '../http/cursor.js';
import { currencyOf } from './payments.js';

interface TransactionQuery {
  type?: string;
  status?: string;
  currency?: string;
  provider_account_id?: string;
  from?: string;
  to?: string;
  limit: number;
  cursor?: string;
}

/** `status=successful,failed`: any of them. The ledger refuses a status it does not know (422). */
const statusesOf = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);

export function ledgerHandlers(ledger: Client<typeof LedgerService>): Handlers {
  return {
    async listTransactions(request, _reply, identity) {
      const q = request.query as TransactionQuery;
      const res = await ledger.listTransactions({
        scope: scopeOf(identity),
        type: q.type,
        statuses: statusesOf(q.status),
        currency: q.currency && currencyOf(q.currency),
        providerAccountId: q.provider_account_id,
        occurredFrom: q.from ? timestampFromDate(new Date(q.from)) : undefined,
        occurredTo: q.to ? timestampFromDate(new Date(q.to)) : undefined,
        limit: q.limit,
        startingAfter: q.cursor === undefined ? undefined : decodeCursor(q.cursor, 'txn'),
      });
      return page(res.transactions.map((t) => transactionJson(t) as { id: string }), res.hasMore);
    },

    async getBalances(_request, _reply, identity) {
      const { balances } = await ledger.getBalances({ scope: scopeOf(identity) });
      return balancesJson(balances);
    },

    async listSettlements(request, _reply, identity) {
      const q = request.query as { status?: string; provider_account_id?: string };
      if (q.status !== undefined && !isOneOf(SETTLEMENT_STATUSES, q.status)) {
        throw new DomainError('validation_error', `status "${q.status}" is not a settlement status`, { param: 'status' });
      }
      const { settlements } = await ledger.listSettlements({
        scope: scopeOf(identity), status: q.status, providerAccountId: q.provider_account_id,
      });
      return { data: settlements.map((s) => settlementJson(s)) };
    },

    async getSettlement(request, _reply, identity) {
      const { id } = request.params as { id: string };
      const { settlement } = await ledger.getSettlement({ scope: scopeOf(identity), id });
      return settlementJson(settlement!, true);
    },
  };
}
