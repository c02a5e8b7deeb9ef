import { cheapestFirst } from './strategies/index.js';
import type { ProviderAccount } from './provider-account.js';
import { DEFAULT_RULE, byPriority, ruleMatches, type RoutingRule } from './routing-rules.js';

/** One way the payment's credential reaches accounts: a provider's (or one account's) directly, or through a vault. */
export interface Reach {
  providerCode: string;
  providerAccountId?: string;
  vault?: string;
  vaultFeeFixed: bigint;
  vaultFeeBps: number;
  vaultAccountId?: string;
}

/** An account the credential does not reach, never tried; `reason` says so in words. */
export interface SkippedAccount {
  providerCode: string;
  providerName: string;
  providerAccountId: string;
  reason: string;
}

export interface RouteRequest {
  amount: bigint;
  currency: string;
  country?: string;
  methodType: string;
  /** Only this provider's accounts are eligible (a stored payment method's issuer). */
  providerCode?: string;
  /** Which accounts the payment's credential reaches; undefined: every account, as before. */
  reach?: Reach[];
}

export interface RoutePlan {
  /** The deciding rule's name, or "default". */
  rule: string;
  /** Absent for the built-in default rule. */
  ruleId?: string;
  candidates: ProviderAccount[];
  /** Accounts that could take the payment but that its credential does not reach. */
  skipped: SkippedAccount[];
}

function eligible(account: ProviderAccount, req: RouteRequest): boolean {
  return (
    account.methods.includes(req.methodType) &&
    (!req.providerCode || account.providerCode === req.providerCode) &&
    (account.currencies.length === 0 || account.currencies.includes(req.currency)) &&
    (account.countries.length === 0 || !req.country || account.countries.includes(req.country))
  );
}

const isDemo = (code: string) => code.startsWith('demo_');

/**
 * How the credential reaches an account: directly (an issuer's token, account-bound or not) before
 * any vault, since forwarding costs the vault's fee; undefined when it does not. Demo accounts
 * simulate a provider and take any credential, except one a demo provider issued, which stays
 * with its issuer as any provider's token does.
 */
function reachOf(account: ProviderAccount, reach: Reach[]): ProviderAccount | undefined {
  if (!account.connected && isDemo(account.providerCode) && !reach.some((r) => isDemo(r.providerCode))) return account;
  const fits = (r: Reach) => r.providerCode === account.providerCode
    && (r.providerAccountId === undefined || r.providerAccountId === account.providerAccountId);
  if (reach.some((r) => fits(r) && r.vault === undefined)) return account;
  const forwarded = reach.find((r) => fits(r) && r.vault !== undefined);
  if (!forwarded) return undefined;
  return {
    ...account,
    feeFixed: account.feeFixed + forwarded.vaultFeeFixed,
    feeBps: account.feeBps + forwarded.vaultFeeBps,
    vault: forwarded.vault,
    vaultAccountId: forwarded.vaultAccountId,
  };
}

function skipReason(account: ProviderAccount, reach: Reach[]): string {
  const bound = reach.filter((r) => r.providerCode === account.providerCode && r.providerAccountId !== undefined);
  return bound.length > 0
    ? `no credential for this ${account.providerName} account (its token is bound to ${bound.map((r) => r.providerAccountId).join(', ')})`
    : `no credential for ${account.providerName}`;
}

/** Splits the accounts that can take the payment into those its credential reaches and those it does not. */
function byReach(accounts: ProviderAccount[], reach: Reach[] | undefined): { reached: ProviderAccount[]; skipped: SkippedAccount[] } {
  if (!reach) return { reached: accounts, skipped: [] };
  const reached: ProviderAccount[] = [];
  const skipped: SkippedAccount[] = [];
  for (const a of accounts) {
    const r = reachOf(a, reach);
    if (r) reached.push(r);
    else skipped.push({ providerCode: a.providerCode, providerName: a.providerName, providerAccountId: a.providerAccountId, reason: skipReason(a, reach) });
  }
  return { reached, skipped };
}

/** The eligible accounts a rule names, in the rule's order; several accounts of one provider cheapest first. */
function orderedBy(rule: RoutingRule, eligibleAccounts: ProviderAccount[]): ProviderAccount[] {
  const chosen: ProviderAccount[] = [];
  for (const entry of rule.providers) {
    for (const a of eligibleAccounts) {
      if ((a.providerAccountId === entry || a.providerCode === entry) && !chosen.includes(a)) chosen.push(a);
    }
  }
  return chosen;
}

/**
 * The merchant's rules first, lowest priority number first: the first rule that matches the
 * payment and names at least one eligible account decides, and its accounts (only those, in its
 * order) are the candidates. A matching rule whose providers cannot take the payment (not
 * connected, or not serving this method, currency or country) falls through, so a rule can prefer
 * providers but never strands a payment that another route could take. With no deciding rule, the
 * default rule: every eligible account, the project's connected ones before the demo ones, each
 * cheapest first for this amount, ties by provider code. An account the payment's credential does
 * not reach (`reach`) is never a candidate of any rule; it is listed in `skipped` with the reason.
 */
export function planRoute(accounts: ProviderAccount[], req: RouteRequest, rules: RoutingRule[] = []): RoutePlan {
  const { reached, skipped } = byReach(accounts.filter((a) => eligible(a, req)), req.reach);
  // Ordered with a forwarded account's vault fee included: a direct route is cheaper than the same account forwarded.
  const eligibleAccounts = reached.sort(cheapestFirst(req.amount));
  for (const rule of [...rules].sort(byPriority)) {
    if (!ruleMatches(rule, req)) continue;
    const candidates = orderedBy(rule, eligibleAccounts);
    if (candidates.length > 0) return { rule: rule.name, ruleId: rule.id, candidates, skipped };
  }
  return { rule: DEFAULT_RULE, candidates: eligibleAccounts, skipped };
}

/**
 * Vault connections are accounts of a vault "provider" (its facts name the `vault` it serves): never
 * routes of their own, they give a forwarded reach its price and connection. A forwarded reach
 * whose vault has no active connection in the scope reaches nothing. `vaultOf`: provider code to
 * vault code, for the vault providers.
 */
export function withVaultConnections(
  accounts: ProviderAccount[], reach: Reach[] | undefined, vaultOf: Map<string, string>,
): { routable: ProviderAccount[]; reach: Reach[] | undefined } {
  const connections = accounts.filter((a) => vaultOf.has(a.providerCode));
  const routable = accounts.filter((a) => !vaultOf.has(a.providerCode));
  if (!reach) return { routable, reach };
  const priced = reach.flatMap((r): Reach[] => {
    if (r.vault === undefined) return [r];
    const connection = connections.find((c) => vaultOf.get(c.providerCode) === r.vault);
    return connection
      ? [{ ...r, vaultFeeFixed: connection.feeFixed, vaultFeeBps: connection.feeBps, vaultAccountId: connection.providerAccountId }]
      : [];
  });
  return { routable, reach: priced };
}
