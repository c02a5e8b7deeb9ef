// What a refused enumeration value is told: the values the field takes, and the ones closest to
// what was sent, so "declined" points to hard_decline and soft_decline and "payout.*" to the
// payout events. Pure; errors.ts uses it for every enum the gateway validates.

/** Past this many values the message names only the closest; the details list them all. */
const LISTED_IN_MESSAGE = 20;
const MOST_SUGGESTED = 4;
/** Fewer characters in common than this is no resemblance. */
const LEAST_COMMON_RUN = 3;

function longestCommonRun(a: string, b: string): number {
  let best = 0;
  const prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j];
      prev[j] = a[i - 1] === b[j - 1] ? diagonal + 1 : 0;
      if (prev[j] > best) best = prev[j];
      diagonal = above;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

/** The allowed values most like `sent`: the longest run of characters in common, then the fewest edits. */
export function closestValues(sent: string, allowed: readonly string[]): string[] {
  const s = sent.toLowerCase();
  const scored = allowed.map((value) => {
    const v = value.toLowerCase();
    return { value, run: longestCommonRun(s, v), edits: editDistance(s, v) };
  });
  const bestRun = Math.max(0, ...scored.map((x) => x.run));
  if (bestRun < Math.min(LEAST_COMMON_RUN, s.length)) return [];
  return scored.filter((x) => x.run === bestRun).sort((a, b) => a.edits - b.edits)
    .slice(0, MOST_SUGGESTED).map((x) => x.value);
}

const quoted = (values: readonly string[]) => values.map((v) => `"${v}"`).join(', ');

/** "test_scenario must be one of "success", … ("declined" is not; closest: "hard_decline", "soft_decline")". */
export function allowedValuesMessage(param: string, allowed: readonly unknown[], sent: unknown): string {
  const values = allowed.map(String);
  const closest = typeof sent === 'string' ? closestValues(sent, values) : [];
  const given = typeof sent === 'string' ? `"${sent}"` : JSON.stringify(sent) ?? 'the value sent';
  const hint = closest.length > 0 ? `${given} is not; closest: ${quoted(closest)}` : `${given} is not`;
  if (values.length <= LISTED_IN_MESSAGE) return `${param} must be one of ${quoted(values)} (${hint})`;
  return `${param} must be one of ${values.length} values, listed in error.details.allowed_values (${hint})`;
}
