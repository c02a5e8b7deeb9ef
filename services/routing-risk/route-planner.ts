import { feeFor } from '../contract/index.js';
import { DEFAULT_RULE, byPriority, ruleMatches, type RoutingRule } from './routing-rules.js';

/** A provider account as routing sees it. */
export interface ProviderAccount {
  providerId: string;
  providerCode: string;
  providerName: string;
  providerAccountId: string;
  /** An account the project connected at a licensed provider (not a demo provider's). */
  connected: boolean;
  currencies: string[];
  countries: string[];
  methods: string[];
  feeFixed: bigint;
  feeBps: number;
  latencyMs: number;
}

export interface RouteRequest {
  amount: bigint;
  currency: string;
  country?: string;
  methodType: string;
  /** Only this provider's accounts are eligible (a stored payment method's issuer). */
  providerCode?: string;
}

export interface RoutePlan {
  /** The deciding rule's name, or "default". */
  rule: string;
  /** Absent for the built-in default rule. */
  ruleId?: string;
  candidates: ProviderAccount[];
}

function eligible(account: ProviderAccount, req: RouteRequest): boolean {
  return (
    account.methods.includes(req.methodType) &&
    (!req.providerCode || account.providerCode === req.providerCode) &&
    (account.currencies.length === 0 || account.currencies.includes(req.currency)) &&
    (account.countries.length === 0 || !req.country || account.countries.includes(req.country))
  );
}

// Connected accounts before demo ones: a test-mode project that connected its provider's sandbox
// wants its payments there, the demo providers remaining behind it for failover. (Live mode has
// connected accounts only.)
function cheapestFirst(amount: bigint) {
  return (a: ProviderAccount, b: ProviderAccount): number => {
    if (a.connected !== b.connected) return a.connected ? -1 : 1;
    const diff = feeFor(a, amount) - feeFor(b, amount);
    return diff !== 0n ? (diff < 0n ? -1 : 1) : a.providerCode.localeCompare(b.providerCode);
  };
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
 * cheapest first for this amount, ties by provider code.
 */
export function planRoute(accounts: ProviderAccount[], req: RouteRequest, rules: RoutingRule[] = []): RoutePlan {
  const eligibleAccounts = accounts.filter((a) => eligible(a, req)).sort(cheapestFirst(req.amount));
  for (const rule of [...rules].sort(byPriority)) {
    if (!ruleMatches(rule, req)) continue;
    const candidates = orderedBy(rule, eligibleAccounts);
    if (candidates.length > 0) return { rule: rule.name, ruleId: rule.id, candidates };
  }
  return { rule: DEFAULT_RULE, candidates: eligibleAccounts };
}
