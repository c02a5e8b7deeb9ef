import type { RiskInput } from '../../proto/gen/svc/risk/v1/risk_pb.js';

/** A payment scoring at or above this is blocked before any provider is called. */
export const BLOCK_THRESHOLD = 80;

/** How far back the velocity rules look. */
export const VELOCITY_WINDOW_MS = 10 * 60 * 1000;

export interface RiskAssessment {
  score: number;
  outcome: 'allow' | 'block';
  reasons: string[];
}

/**
 * Earlier risk decisions of the same project and mode inside VELOCITY_WINDOW_MS that share this
 * payment's customer key, device fingerprint or device IP. The store counts them; passing them in
 * keeps the scoring pure and testable without a database or a clock.
 */
export interface VelocityCounts {
  customer: number;
  fingerprint: number;
  ip: number;
}

export const NO_VELOCITY: VelocityCounts = { customer: 0, fingerprint: 0, ip: 0 };

interface Band<T> {
  above: T;
  points: number;
  reason: string;
}

// Amounts are compared in minor units regardless of currency: a coarse signal, documented as such.
const AMOUNT_BANDS: Band<bigint>[] = [
  { above: 10_000_000n, points: 60, reason: 'amount_above_100000' },
  { above: 1_000_000n, points: 30, reason: 'amount_above_10000' },
  { above: 100_000n, points: 10, reason: 'amount_above_1000' },
];

// "above: 4" reads "5 or more earlier payments in the window". Card testing shows up as many
// attempts from one customer or device in minutes; one shopper retrying a decline does not reach 5.
const CUSTOMER_BANDS: Band<number>[] = [
  { above: 19, points: 50, reason: 'customer_velocity_high' },
  { above: 4, points: 30, reason: 'customer_velocity' },
];
// The strongest of the two device signals counts, once: a fingerprint and its IP are one device.
const FINGERPRINT_BANDS: Band<number>[] = [
  { above: 19, points: 50, reason: 'device_velocity_high' },
  { above: 4, points: 30, reason: 'device_velocity' },
];
// An IP is shared by every shopper behind one NAT or mobile carrier, so it needs twice the count.
const IP_BANDS: Band<number>[] = [
  { above: 39, points: 50, reason: 'ip_velocity_high' },
  { above: 9, points: 30, reason: 'ip_velocity' },
];

function band<T>(bands: Band<T>[], value: T): Band<T> | undefined {
  return bands.find((b) => value > b.above);
}

/** Pure scoring: the same input and counts always give the same score. */
export function assessRisk(input: RiskInput, velocity: VelocityCounts = NO_VELOCITY): RiskAssessment {
  let score = 0;
  const reasons: string[] = [];
  const add = (b: Band<unknown> | undefined) => {
    if (!b) return;
    score += b.points;
    reasons.push(b.reason);
  };
  add(band(AMOUNT_BANDS, input.amount));
  if (input.country && input.customerCountry && input.country !== input.customerCountry) {
    score += 20;
    reasons.push('country_mismatch');
  }
  add(band(CUSTOMER_BANDS, velocity.customer));
  const device = [band(FINGERPRINT_BANDS, velocity.fingerprint), band(IP_BANDS, velocity.ip)]
    .filter((b): b is Band<number> => b !== undefined)
    .sort((a, b) => b.points - a.points)[0];
  add(device);
  score = Math.min(100, score);
  return { score, outcome: score >= BLOCK_THRESHOLD ? 'block' : 'allow', reasons };
}
