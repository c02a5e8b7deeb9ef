// 95 % intervals of an acceptance rate and of the difference between two: what the A/B report
// shows per arm. Wilson's score interval stays inside [0, 1] and behaves at small n and at rates
// near 0 or 1, where the textbook p ± 1.96·√(p(1−p)/n) does not; the difference uses Newcombe's
// hybrid score interval (1998, method 10), built from the two Wilson intervals.

/** The normal quantile of a two-sided 95 % interval. */
export const Z95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/** Wilson's score interval of `successes` out of `n` (n ≥ 1). */
export function wilsonInterval(successes: number, n: number, z = Z95): Interval {
  if (!(n >= 1) || successes < 0 || successes > n) throw new RangeError(`wilsonInterval: ${successes} of ${n}`);
  const p = successes / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const spread = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const denominator = 1 + z2 / n;
  // Clamped: at p = 0 or 1 rounding can put a bound a hair outside [0, 1].
  return { low: Math.max(0, (centre - spread) / denominator), high: Math.min(1, (centre + spread) / denominator) };
}

/** The difference a/na − b/nb with Newcombe's hybrid score interval (both n ≥ 1). */
export function differenceInterval(a: number, na: number, b: number, nb: number, z = Z95): { difference: number } & Interval {
  const pa = a / na;
  const pb = b / nb;
  const wa = wilsonInterval(a, na, z);
  const wb = wilsonInterval(b, nb, z);
  const difference = pa - pb;
  return {
    difference,
    low: difference - Math.sqrt((pa - wa.low) ** 2 + (wb.high - pb) ** 2),
    high: difference + Math.sqrt((wa.high - pa) ** 2 + (pb - wb.low) ** 2),
  };
}
