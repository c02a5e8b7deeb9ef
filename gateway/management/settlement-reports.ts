import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import type { ProviderSettlement } from '../../proto/gen/svc/payments/v1/provider_settlements_pb.js';
import type { ProviderAccount } from '../../proto/gen/svc/routing/v1/provider_accounts_pb.js';
import { invalidField } from '../../services/contract/index.js';
import { settlementReportOf } from '../../services/contract/ledger-settlement-report.js';
import { settlementJson } from '../../services/contract/index.js';
import { audit, type ManageDeps, type ManageHandlers } from './context.js';

// A provider account's settlements into the ledger (docs/connectors.md, "Settlements"):
//   POST /manage/v1/provider-accounts/:id/settlement-reports   text/csv: Adyen's Settlement details report
//   POST /manage/v1/provider-accounts/:id/settlement-sync      {since?}: Stripe's payouts, from its API
// The account (routing-risk) gives the scope; payments reads the batches through the account's
// connector (it alone holds credentials and calls providers); the ledger ingests them all or none
// through its one settlement ingestion, which makes a repeated import change nothing.

/** Largest report accepted: Adyen's batch files of a busy day fit many times over. */
export const MAX_SETTLEMENT_REPORT_BYTES = 10 * 1024 * 1024;

export function settlementReportHandlers(deps: ManageDeps): ManageHandlers {
  const { clients: { providerAccounts, providerSettlements, ledger } } = deps;

  async function ingest(action: string, account: ProviderAccount, settlements: ProviderSettlement[]) {
    const { results } = settlements.length === 0
      ? { results: [] }
      : await ledger.ingestSettlementReports({ reports: settlements.map((s) => settlementReportOf(account, s)) });
    const data = results.map((r) => ({ ...settlementJson(r.settlement!), changed: r.changed }));
    const created = results.filter((r) => r.changed).length;
    await audit(deps, action, {
      merchantId: account.merchantId, projectId: account.projectId, targetId: account.id,
      data: { settlements: data.map((s) => ({ id: s.id, reference: s.settlement_reference, changed: s.changed })) },
    });
    return {
      object: 'settlement_import', provider_account_id: account.id, provider: account.providerCode, mode: account.mode,
      created, unchanged: results.length - created, data,
    };
  }

  return {
    async importSettlementReport(request) {
      const { id } = request.params as { id: string };
      if (typeof request.body !== 'string' || request.body.trim() === '') {
        throw invalidField('report', 'Send the report as the body, with Content-Type: text/csv');
      }
      const account = (await providerAccounts.getProviderAccount({ id })).account!;
      const scope = { merchantId: account.merchantId, projectId: account.projectId, mode: account.mode };
      const { settlements } = await providerSettlements.readSettlementReport({
        scope, providerAccountId: id, providerCode: account.providerCode, text: request.body,
      });
      return ingest('settlement_report.imported', account, settlements);
    },

    async syncSettlements(request) {
      const { id } = request.params as { id: string };
      const { since } = (request.body ?? {}) as { since?: string };
      const from = since === undefined ? undefined : new Date(since);
      if (from && Number.isNaN(from.getTime())) throw invalidField('since', 'since must be an ISO 8601 date-time');
      const account = (await providerAccounts.getProviderAccount({ id })).account!;
      const scope = { merchantId: account.merchantId, projectId: account.projectId, mode: account.mode };
      const { settlements } = await providerSettlements.listProviderSettlements({
        scope, providerAccountId: id, providerCode: account.providerCode, since: from && timestampFromDate(from),
      });
      return ingest('settlements.synced', account, settlements);
    },
  };
}
