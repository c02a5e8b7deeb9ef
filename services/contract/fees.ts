/**
 * What a provider account charges to move an amount: a fixed part in minor units plus basis points
 * of the amount. Routing orders accounts by it, payouts price a payout by it and the demo providers
 * charge it, so all three agree on what an account costs.
 */
export interface Pricing {
  /** Minor units per operation. */
  feeFixed: bigint;
  /** Hundredths of a percent of the amount. */
  feeBps: number;
}

/** fixed + amount × bps / 10 000, rounded down to the minor unit (a provider never bills a fraction). */
export function feeFor(pricing: Pricing, amount: bigint): bigint {
  return pricing.feeFixed + (amount * BigInt(pricing.feeBps)) / 10_000n;
}
