import { feeFor } from '../../contract/index.js';
import { parseMajorAmount } from '../../contract/money.js';

/**
 * The sandbox's demo providers' dispute fee: 15 in the currency's major unit (15.00 EUR, 15 JPY,
 * 15.000 KWD), charged with each withdrawal and kept when the dispute is won, as card providers do.
 * Real providers report their own fee with their view of the dispute; one that does not reports 0
 * and the settlement import books the fee it lists (docs/disputes.md).
 */
export const DEMO_DISPUTE_FEE_MAJOR = '15';

export function demoDisputeFee(currency: string): bigint {
  return feeFor({ feeFixed: parseMajorAmount(DEMO_DISPUTE_FEE_MAJOR, currency) ?? 0n, feeBps: 0 }, 0n);
}
