import type { RiskInput } from '../../proto/gen/svc/risk/v1/risk_pb.js';

/** A payment scoring at or above this is blocked before any provider is called. */
export const BLOCK_THRESHOLD = 80;

export interface RiskAssessment {
  score: number;
  outcome: 'allow' | 'block';
  reasons: string[];
}

// Amounts are compared in minor units regardless of currency: a coarse signal, documented as such.
const AMOUNT_BANDS: Array<{ above: bigint; points: number; reason: string }> = [
  { above: 10_000_000n, points: 60, reason: 'amount_above_100000' },
  { above: 1_000_000n, points: 30, reason: 'amount_above_10000' },
  { above: 100_000n, points: 10, reason: 'amount_above_1000' },
];

/** Pure scoring: the same input always gives the same score. */
export function assessRisk(input: RiskInput): RiskAssessment {
  let score = 0;
  const reasons: string[] = [];
  const band = AMOUNT_BANDS.find((b) => input.amount > b.above);
  if (band) {
    score += band.points;
    reasons.push(band.reason);
  }
  if (input.country && input.customerCountry && input.country !== input.customerCountry) {
    score += 20;
    reasons.push('country_mismatch');
  }
  score = Math.min(100, score);
  return { score, outcome: score >= BLOCK_THRESHOLD ? 'block' : 'allow', reasons };
}
