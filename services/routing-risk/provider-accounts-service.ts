import type { ConnectRouter } from '@connectrpc/connect';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  ProviderAccountsService, type ProviderAccount as AccountMessage,
} from '../../proto/gen/svc/routing/v1/provider_accounts_pb.js';
import { isOneOf, MODES, PAYMENT_METHOD_TYPES } from '../contract/enums.js';
import type { Clock } from '../platform/clock.js';
import { requireScope } from '../platform/request-guards.js';
import { invalidField, serviceError, toConnectError } from '../contract/index.js';
import { limitReached, MAX_ACTIVE_PROVIDER_ACCOUNTS } from '../contract/project-caps.js';
import { CONTROL_CHARACTERS_PROBLEM, hasControlCharacter } from '../contract/control-characters.js';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import type {
  ConnectedAccount, LicensedProvider, NewConnectedAccount, ProviderAccountStore,
} from './provider-account-store.js';

// ProviderAccountsService: the accounts a project connects at licensed providers, which the route
// planner then treats like demo accounts (store.ts, ACCOUNTS_SQL).

const MAX_LIST = 50;
const MAX_FEE_FIXED = 1_000_000_000n;

function toProto(a: ConnectedAccount) {
  return {
    id: a.id, merchantId: a.merchantId, projectId: a.projectId, mode: a.mode,
    providerCode: a.providerCode, providerName: a.providerName, name: a.name,
    paymentMethodTypes: a.methods, currencies: a.currencies, countries: a.countries,
    feeFixed: a.feeFixed, feeBps: a.feeBps, status: a.status,
    createdAt: timestampFromDate(a.createdAt), updatedAt: a.updatedAt ? timestampFromDate(a.updatedAt) : undefined,
  };
}

/** A list the account narrows its provider with: well-formed, and within what the provider serves. */
function narrowing(param: string, values: string[], served: string[], ok: (v: string) => boolean, what: string) {
  if (values.length > MAX_LIST) throw invalidField(param, `${param} may list at most ${MAX_LIST} values`);
  const bad = values.find((v) => !ok(v));
  if (bad !== undefined) throw invalidField(param, `${param}: "${bad}" is not ${what}`);
  const outside = served.length === 0 ? undefined : values.find((v) => !served.includes(v));
  if (outside !== undefined) {
    throw invalidField(param, `${param}: the provider does not serve "${outside}" (it serves ${served.join(', ')})`);
  }
  return [...new Set(values)];
}

function accountOf(m: AccountMessage, provider: LicensedProvider): NewConnectedAccount {
  if (!/^pac_[a-z0-9]{1,60}$/.test(m.id)) throw invalidField('id', 'id must be a provider account id (pac_…)');
  const name = m.name.trim();
  if (name.length < 1 || name.length > 100) throw invalidField('name', 'name must be 1 to 100 characters');
  if (hasControlCharacter(name)) throw invalidField('name', `name ${CONTROL_CHARACTERS_PROBLEM}`);
  if (m.feeFixed < 0n || m.feeFixed > MAX_FEE_FIXED) {
    throw invalidField('fee_fixed', `fee_fixed must be a whole number of minor units from 0 to ${MAX_FEE_FIXED}`);
  }
  if (!Number.isInteger(m.feeBps) || m.feeBps < 0 || m.feeBps > 10_000) {
    throw invalidField('fee_bps', 'fee_bps must be a whole number of basis points from 0 to 10000 (100%)');
  }
  return {
    id: m.id,
    providerCode: provider.code,
    name,
    methods: narrowing('payment_method_types', m.paymentMethodTypes, provider.methods,
      (v) => isOneOf(PAYMENT_METHOD_TYPES, v), 'a payment method type'),
    currencies: narrowing('currencies', m.currencies, provider.currencies, (v) => /^[A-Z]{3}$/.test(v), 'a 3-letter currency code'),
    countries: narrowing('countries', m.countries, provider.countries, (v) => /^[A-Z]{2}$/.test(v), 'a 2-letter country code'),
    feeFixed: m.feeFixed,
    feeBps: m.feeBps,
  };
}

const activeCap = () => toConnectError(limitReached(
  'active provider accounts in this mode', MAX_ACTIVE_PROVIDER_ACCOUNTS, 'disable one it no longer uses first.'));
const notFound = (id: string) => serviceError('resource_not_found', `No provider account ${id}`, { param: 'id' });

export function providerAccountRoutes(store: ProviderAccountStore, clock: Clock) {
  async function licensed(code: string): Promise<LicensedProvider> {
    const provider = await store.licensedProvider(code);
    if (provider) return provider;
    const known = await store.licensedCodes();
    throw invalidField('provider', `Unknown provider "${code}"; the providers that can be connected are ${known.join(', ')}`);
  }

  /** The same id again is the same connect repeated (its answer was lost); a taken name is refused. */
  async function existing(scope: Scope, a: NewConnectedAccount): Promise<ConnectedAccount> {
    const same = await store.get(a.id);
    if (same && same.projectId === scope.projectId && same.mode === scope.mode) return same;
    const named = await store.named(scope, a.name);
    if (named) {
      throw invalidField('name', `This project already has a ${scope.mode} provider account named "${a.name}" (${named.id})`);
    }
    throw invalidField('id', `The id ${a.id} is taken`);
  }

  return (router: ConnectRouter) => {
    router.service(ProviderAccountsService, {
      async createProviderAccount(req) {
        const scope = requireScope(req.scope);
        if (!req.account) throw invalidField('account', 'account is required');
        const account = accountOf(req.account, await licensed(req.account.providerCode));
        const created = await store.create(scope, account, clock.now(), MAX_ACTIVE_PROVIDER_ACCOUNTS);
        if (created === 'limit_reached') throw activeCap();
        return { account: toProto(created ?? (await existing(scope, account))) };
      },

      async listProviderAccounts(req) {
        if (!req.merchantId || !req.projectId) throw invalidField('project_id', 'merchant_id and project_id are required');
        if (req.mode !== undefined && !isOneOf(MODES, req.mode)) throw invalidField('mode', 'mode must be test or live');
        const accounts = await store.list(req.merchantId, req.projectId, req.mode);
        return { accounts: accounts.map(toProto) };
      },

      async getProviderAccount(req) {
        const account = await store.get(req.id);
        if (!account) throw notFound(req.id);
        return { account: toProto(account) };
      },

      async setProviderAccountStatus(req) {
        if (req.status !== 'active' && req.status !== 'disabled') {
          throw invalidField('status', 'status must be active or disabled');
        }
        const account = await store.setStatus(req.id, req.status, clock.now(), MAX_ACTIVE_PROVIDER_ACCOUNTS);
        if (!account) throw notFound(req.id);
        if (account === 'limit_reached') throw activeCap();
        return { account: toProto(account) };
      },
    });
  };
}
