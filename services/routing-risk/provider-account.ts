// An account as routing plans with it: the provider's facts, the account's pricing and reach, and,
// for a forwarded candidate, the vault that carries the card. Its own file so the route planner
// and the strategies that order its candidates both import it, neither from the other.
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
  /** Set on a candidate the payment's card is forwarded to through this vault (its fee included above). */
  vault?: string;
  /** The vault connection (its provider account) that forwards it. */
  vaultAccountId?: string;
}
