import type { ServiceImpl } from '@connectrpc/connect';
import type { RoutingService } from '../../proto/gen/svc/routing/v1/routing_pb.js';
import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import { requireScope } from '../platform/request-guards.js';
import { feeFor, serviceError } from '../contract/index.js';
import type { ProviderAccount } from './provider-account.js';

/**
 * Payout routing: which provider account sends a payout. Payouts have their own rules, apart
 * from the payment routing rules, because what a provider can pay out to (a bank account, a
 * wallet, a card) and what it charges for it have nothing to do with the methods it accepts.
 *
 * The rules are tried in order; the first whose destination types include the payout's and that
 * names at least one eligible account (connected to the scope, serving the currency and country)
 * decides, its accounts in its order. Otherwise the `default` rule: every account able to send to
 * that destination type, cheapest first, ties by provider code. Merchant-defined payout rules are
 * not built yet (docs/ledger.md). The accounts are the scope's, as for payments: a live payout
 * reaches only the project's connected live accounts, and only those whose provider has a
 * capability (the payout_capabilities table, one row per provider).
 */

/** What a provider can pay out to, and its price (feeFor of the contract, fees.ts). */
export interface PayoutCapability {
  destinationTypes: string[];
  feeFixed: bigint;
  feeBps: number;
}

export interface PayoutRule {
  name: string;
  destinationTypes: string[];
  /** Provider codes in the order to try them. */
  providers: string[];
}

/** Bank rails first for bank accounts, card networks first for card tokens. */
export const PAYOUT_RULES: readonly PayoutRule[] = [
  { name: 'bank_account', destinationTypes: ['bank_account'], providers: ['demo_beta', 'demo_gamma'] },
  { name: 'card_token', destinationTypes: ['card_token'], providers: ['demo_alpha', 'demo_gamma'] },
];

export interface PayoutRequest {
  amount: bigint;
  currency: string;
  destinationType: string;
  country?: string;
}

export interface PayoutCandidate {
  account: ProviderAccount;
  fee: bigint;
}

export function planPayoutRoute(
  accounts: ProviderAccount[], req: PayoutRequest, capabilities: Readonly<Record<string, PayoutCapability>>,
  rules: readonly PayoutRule[] = PAYOUT_RULES,
): { rule: string; candidates: PayoutCandidate[] } {
  const eligible = accounts
    .filter((a) => {
      const c = capabilities[a.providerCode];
      return c !== undefined && c.destinationTypes.includes(req.destinationType)
        && (a.currencies.length === 0 || a.currencies.includes(req.currency))
        && (a.countries.length === 0 || !req.country || a.countries.includes(req.country));
    })
    .map((account) => ({ account, fee: feeFor(capabilities[account.providerCode], req.amount) }))
    .sort((a, b) => (a.fee !== b.fee ? (a.fee < b.fee ? -1 : 1) : a.account.providerCode.localeCompare(b.account.providerCode)));
  for (const rule of rules) {
    if (!rule.destinationTypes.includes(req.destinationType)) continue;
    const chosen = rule.providers.flatMap((code) => eligible.filter((c) => c.account.providerCode === code));
    if (chosen.length > 0) return { rule: rule.name, candidates: chosen };
  }
  return { rule: 'default', candidates: eligible };
}

/** What planning a payout reads from the store: the project's accounts and each provider's capability. */
export interface PayoutRoutingFacts {
  accountsFor(scope: Scope): Promise<ProviderAccount[]>;
  payoutCapabilities(): Promise<Record<string, PayoutCapability>>;
}

/** RoutingService.PlanPayout; services/routing-risk/service.ts serves it with the other methods. */
export function planPayoutHandler(store: PayoutRoutingFacts): ServiceImpl<typeof RoutingService>['planPayout'] {
  return async (req) => {
    const scope = requireScope(req.scope);
    if (req.amount < 1n || !/^[A-Z]{3}$/.test(req.currency) || !req.destinationType) {
      throw serviceError('validation_error', 'amount, currency and destination_type are required', { param: 'input' });
    }
    const [accounts, capabilities] = await Promise.all([store.accountsFor(scope), store.payoutCapabilities()]);
    const plan = planPayoutRoute(accounts, {
      amount: req.amount, currency: req.currency, destinationType: req.destinationType, country: req.country,
    }, capabilities);
    return {
      rule: plan.rule,
      candidates: plan.candidates.map((c) => ({
        providerId: c.account.providerId,
        providerCode: c.account.providerCode,
        providerName: c.account.providerName,
        providerAccountId: c.account.providerAccountId,
        fee: c.fee,
      })),
    };
  };
}
