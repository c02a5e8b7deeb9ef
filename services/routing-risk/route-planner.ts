/** A provider account as routing sees it. */
export interface ProviderAccount {
  providerId: string;
  providerCode: string;
  providerName: string;
  providerAccountId: string;
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
}

export interface RoutePlan {
  rule: string;
  candidates: ProviderAccount[];
}

export function feeFor(account: Pick<ProviderAccount, 'feeFixed' | 'feeBps'>, amount: bigint): bigint {
  return account.feeFixed + (amount * BigInt(account.feeBps)) / 10_000n;
}

function eligible(account: ProviderAccount, req: RouteRequest): boolean {
  return (
    account.methods.includes(req.methodType) &&
    (account.currencies.length === 0 || account.currencies.includes(req.currency)) &&
    (account.countries.length === 0 || !req.country || account.countries.includes(req.country))
  );
}

/**
 * The default rule: every eligible account, cheapest first for this amount, ties broken by
 * provider code so the order is deterministic.
 */
export function planRoute(accounts: ProviderAccount[], req: RouteRequest): RoutePlan {
  const candidates = accounts
    .filter((a) => eligible(a, req))
    .sort((a, b) => {
      const diff = feeFor(a, req.amount) - feeFor(b, req.amount);
      return diff !== 0n ? (diff < 0n ? -1 : 1) : a.providerCode.localeCompare(b.providerCode);
    });
  return { rule: 'default', candidates };
}
