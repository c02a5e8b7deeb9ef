import type { ConnectRouter, HandlerContext } from '@connectrpc/connect';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampDate, timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { Scope } from '../../../proto/gen/svc/common/v1/common_pb.js';
import {
  ProviderSettlementsService, type ProviderSettlementSchema,
} from '../../../proto/gen/svc/payments/v1/provider_settlements_pb.js';
import { withDeadline } from '../../platform/deadline.js';
import type { Logger } from '../../platform/logger.js';
import { requireScope } from '../../platform/request-guards.js';
import { invalidField, serviceError } from '../../contract/index.js';
import type { Connector, ConnectorRegistry, ProviderSettlement } from '../../connectors/index.js';
import type { CredentialStore } from '../provider-credentials/index.js';
import type { SettlementLookups } from './store.js';

// ProviderSettlementsService: what a provider settled for an account, read through the account's
// connector, with our payment ids put in where the provider echoed an attempt id. Nothing is
// written here: the caller hands the batches to the ledger's one settlement ingestion.

export interface ProviderSettlementDeps {
  credentials: Pick<CredentialStore, 'belongsTo'>;
  connectors: ConnectorRegistry;
  lookups: SettlementLookups;
  logger: Logger;
  /** A sync makes a request per payout and page: a minute, not one provider call's deadline. */
  listTimeoutMs: number;
}

export type SettlementMessage = MessageInitShape<typeof ProviderSettlementSchema>;

/** Our payment ids for the attempt ids the provider echoed; the provider's references stay beside them. */
export async function settlementMessages(
  lookups: SettlementLookups, accountId: string, settlements: ProviderSettlement[],
): Promise<SettlementMessage[]> {
  const attempts = settlements.flatMap((s) => s.items.flatMap((i) => (i.attemptId ? [i.attemptId] : [])));
  const payments = await lookups.paymentsOfAttempts(accountId, [...new Set(attempts)]);
  return settlements.map((s) => ({
    reference: s.reference,
    currency: s.currency,
    status: s.status,
    periodStart: timestampFromDate(s.periodStart),
    periodEnd: timestampFromDate(s.periodEnd),
    settledAt: s.settledAt ? timestampFromDate(s.settledAt) : undefined,
    settlementEntity: s.settlementEntity ?? undefined,
    items: s.items.map((i) => ({
      type: i.type,
      entityId: i.type === 'payment' ? (i.attemptId && payments.get(i.attemptId)) || undefined : i.refundId,
      providerReference: i.providerReference,
      paymentReference: i.paymentReference,
      amount: i.amount,
      feeAmount: i.fee,
    })),
    fees: s.fees,
  }));
}

export function providerSettlementRoutes(deps: ProviderSettlementDeps) {
  async function connectorFor(scope: Scope, code: string, accountId: string): Promise<Connector> {
    if (!/^pac_\w{1,80}$/.test(accountId)) throw invalidField('provider_account_id', 'provider_account_id must be a provider account id (pac_…)');
    if (!(await deps.credentials.belongsTo(accountId, scope, code))) {
      throw serviceError('resource_not_found', `No ${code} account ${accountId} with credentials in this project and mode`, { param: 'provider_account_id' });
    }
    const connector = deps.connectors.forProvider(code);
    if (!connector) throw invalidField('provider_account_id', `No connector for ${code} is installed in this deployment`);
    return connector;
  }

  return (router: ConnectRouter) => {
    router.service(ProviderSettlementsService, {
      async readSettlementReport(req) {
        const scope = requireScope(req.scope);
        const connector = await connectorFor(scope, req.providerCode, req.providerAccountId);
        if (!connector.readSettlementReport) {
          throw invalidField('provider_account_id', `${req.providerCode} settlements are not uploaded as a report; use svc settlement sync`);
        }
        const read = await connector.readSettlementReport({
          account: { providerCode: req.providerCode, id: req.providerAccountId }, text: req.text,
        });
        if (!read.ok) {
          const where = [read.line !== null && `line ${read.line}`, read.column !== null && `column "${read.column}"`].filter(Boolean);
          throw invalidField('report', `${where.length > 0 ? `${where.join(', ')}: ` : ''}${read.message}`);
        }
        return { settlements: await settlementMessages(deps.lookups, req.providerAccountId, read.settlements) };
      },

      async listProviderSettlements(req, ctx: HandlerContext) {
        const scope = requireScope(req.scope);
        const connector = await connectorFor(scope, req.providerCode, req.providerAccountId);
        if (!connector.listSettlements) {
          throw invalidField('provider_account_id', `${req.providerCode} settlements are not fetched from its API; upload its report with svc settlement import`);
        }
        let settlements: ProviderSettlement[];
        try {
          settlements = await withDeadline(deps.listTimeoutMs, (signal) => connector.listSettlements!({
            account: { providerCode: req.providerCode, id: req.providerAccountId },
            since: req.since ? timestampDate(req.since) : undefined,
            signal: AbortSignal.any([signal, ctx.signal]),
          }));
        } catch (err) {
          // The provider's message only (a connector's error never quotes credentials).
          deps.logger.warn({ providerAccountId: req.providerAccountId, err: (err as Error).message }, 'settlement sync failed');
          throw serviceError('provider_unavailable', `${req.providerCode} could not be asked for its settlements: ${(err as Error).message}`);
        }
        return { settlements: await settlementMessages(deps.lookups, req.providerAccountId, settlements) };
      },
    });
  };
}
