import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { CredentialsInfo } from '../../proto/gen/svc/payments/v1/provider_credentials_pb.js';
import type { ProviderAccount } from '../../proto/gen/svc/routing/v1/provider_accounts_pb.js';
import { newId } from '../../services/platform/ids.js';
import { fromConnectError, minorFromJson, minorToJson } from '../../services/contract/index.js';
import type { Mode } from '../store/index.js';
import { audit, projectNotFound, projectScope, type ManageDeps, type ManageHandlers } from './context.js';
import { wholeNumber } from './routing-rules.js';

// A project's accounts at licensed providers. The account lives in routing-risk, its credentials in
// payments (the only part that calls providers), each over gRPC:
//   POST /manage/v1/projects/:id/provider-accounts          {mode, provider, name, credentials, ...}
//   GET  /manage/v1/projects/:id/provider-accounts[?mode=M]
//   GET  /manage/v1/provider-accounts/:id                    with the names of the stored credential fields
//   POST /manage/v1/provider-accounts/:id/{disable,enable,test}
// Credentials go in once and never come out: no answer and no audit record holds a value.

interface ConnectBody {
  mode: Mode;
  provider: string;
  name: string;
  credentials: Record<string, string>;
  payment_method_types?: string[];
  currencies?: string[];
  countries?: string[];
  fee_fixed?: unknown;
  fee_bps?: unknown;
}

const iso = (t: Timestamp | undefined) => (t ? timestampDate(t).toISOString() : null);

export function accountJson(a: ProviderAccount, credentials?: CredentialsInfo) {
  return {
    id: a.id, object: 'provider_account', merchant_id: a.merchantId, project_id: a.projectId, mode: a.mode,
    provider: { code: a.providerCode, name: a.providerName }, name: a.name, status: a.status,
    payment_method_types: a.paymentMethodTypes, currencies: a.currencies, countries: a.countries,
    fee_fixed: minorToJson(a.feeFixed), fee_bps: a.feeBps,
    ...(credentials !== undefined && { credentials: { fields: credentials.fields, updated_at: iso(credentials.updatedAt) } }),
    created_at: iso(a.createdAt), updated_at: iso(a.updatedAt),
  };
}

const upper = (values: string[] | undefined) => (values ?? []).map((v) => v.toUpperCase());

export function providerAccountHandlers(deps: ManageDeps): ManageHandlers {
  const { store, clock, clients: { providerAccounts, providerCredentials } } = deps;
  type Json = ReturnType<typeof accountJson>;
  const recorded = (action: string, json: Json) =>
    audit(deps, action, {
      merchantId: json.merchant_id, projectId: json.project_id, targetId: json.id,
      data: { ...json, credentials: json.credentials && { fields: json.credentials.fields } },
    });
  const accountOf = async (id: string) => (await providerAccounts.getProviderAccount({ id })).account!;

  const setStatus = (status: 'active' | 'disabled') => async (request: { params: unknown }) => {
    const { id } = request.params as { id: string };
    const { account } = await providerAccounts.setProviderAccountStatus({ id, status });
    const json = accountJson(account!);
    await recorded(`provider_account.${status === 'active' ? 'enabled' : 'disabled'}`, json);
    return json;
  };

  return {
    /**
     * Credentials first, then the account: a routable account always has credentials. When
     * routing-risk refuses the account, the credentials just stored are removed; when it cannot be
     * reached they stay behind under an id nothing routes to, and connecting again is safe (a
     * second account with the same name is refused, naming the first).
     */
    async connectProviderAccount(request) {
      const b = request.body as ConnectBody;
      const scope = await projectScope(store, (request.params as { id: string }).id, b.mode);
      const id = newId('pac', clock.now());
      const account = {
        id, providerCode: b.provider, name: b.name, paymentMethodTypes: b.payment_method_types ?? [],
        currencies: upper(b.currencies), countries: upper(b.countries),
        feeFixed: minorFromJson(b.fee_fixed === undefined ? 0 : wholeNumber(b.fee_fixed, 'fee_fixed')),
        feeBps: b.fee_bps === undefined ? 0 : wholeNumber(b.fee_bps, 'fee_bps'),
      };
      const { credentials } = await providerCredentials.putCredentials({
        scope, providerAccountId: id, providerCode: b.provider, values: b.credentials,
      });
      let created: ProviderAccount;
      try {
        created = (await providerAccounts.createProviderAccount({ scope, account })).account!;
      } catch (err) {
        if (fromConnectError(err).status < 500) {
          await providerCredentials.deleteCredentials({ providerAccountId: id }).catch(() => undefined);
        }
        throw err;
      }
      const json = accountJson(created, credentials);
      await recorded('provider_account.connected', json);
      return json;
    },

    async listProviderAccounts(request) {
      const { id } = request.params as { id: string };
      const { mode } = request.query as { mode?: Mode };
      const merchantId = await store.projectMerchant(id);
      if (!merchantId) throw projectNotFound(id);
      const { accounts } = await providerAccounts.listProviderAccounts({ merchantId, projectId: id, mode });
      return { data: accounts.map((a) => accountJson(a)) };
    },

    async getProviderAccount(request) {
      const { id } = request.params as { id: string };
      const account = await accountOf(id);
      const { credentials } = await providerCredentials.describeCredentials({ providerAccountId: id });
      return { ...accountJson(account), credentials: credentials ? accountJson(account, credentials).credentials : null };
    },

    disableProviderAccount: setStatus('disabled'),
    enableProviderAccount: setStatus('active'),

    async testProviderAccount(request) {
      const { id } = request.params as { id: string };
      const account = await accountOf(id);
      const check = await providerCredentials.checkCredentials({ providerAccountId: id, providerCode: account.providerCode });
      return {
        object: 'provider_account_check', provider_account_id: id, provider: account.providerCode, mode: account.mode,
        ok: check.ok, reason: check.ok ? null : check.reason, provider_error_code: check.providerErrorCode ?? null,
        message: check.message,
      };
    },
  };
}
