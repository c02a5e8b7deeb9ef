import type { Payment } from '../api/types';

// The home page's figures, computed in the browser from the payments list (see docs/decisions.md,
// "Dashboard home charts"): buckets of an hour (last day) or a day (week, month), volume of
// succeeded payments in the most used currency, success rate of decided payments, failure reasons,
// and the same by provider and by method.

export type Period = 'day' | 'week' | 'month';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const PERIODS: Record<Period, { span: number; bucket: number; text: string }> = {
  day: { span: DAY, bucket: HOUR, text: 'Last 24 hours' },
  week: { span: 7 * DAY, bucket: DAY, text: 'Last 7 days' },
  month: { span: 30 * DAY, bucket: DAY, text: 'Last 30 days' },
};

const SUCCEEDED = new Set(['successful', 'captured', 'refunded', 'partially_refunded']);
const FAILED = new Set(['failed']);

export interface Breakdown {
  key: string;
  count: number;
  succeeded: number;
  failed: number;
  volume: number;
}

export interface Metrics {
  currency: string | null;
  /** Bucket start times in seconds, as uPlot wants them. */
  times: number[];
  volume: number[];
  successRate: (number | null)[];
  failures: { code: string; count: number }[];
  byProvider: Breakdown[];
  byMethod: Breakdown[];
  total: number;
}

export function mainCurrency(payments: Payment[]): string | null {
  const counts = new Map<string, number>();
  for (const p of payments) counts.set(p.currency, (counts.get(p.currency) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
}

export function metrics(payments: Payment[], period: Period, now: number): Metrics {
  const { span, bucket } = PERIODS[period];
  const start = Math.floor((now - span) / bucket) * bucket + bucket;
  const n = Math.round(span / bucket);
  const times = Array.from({ length: n }, (_, i) => (start + i * bucket) / 1000);
  const volume = new Array<number>(n).fill(0);
  const ok = new Array<number>(n).fill(0);
  const decided = new Array<number>(n).fill(0);
  const currency = mainCurrency(payments);
  const failures = new Map<string, number>();
  for (const p of payments) {
    const i = Math.floor((Date.parse(p.created_at) - start) / bucket);
    if (i < 0 || i >= n) continue;
    const succeeded = SUCCEEDED.has(p.status);
    if (succeeded && p.currency === currency) volume[i] += p.amount;
    if (succeeded || FAILED.has(p.status)) decided[i] += 1;
    if (succeeded) ok[i] += 1;
    if (FAILED.has(p.status)) failures.set(p.failure?.code ?? 'unknown', (failures.get(p.failure?.code ?? 'unknown') ?? 0) + 1);
  }
  return {
    currency,
    times,
    volume,
    successRate: decided.map((d, i) => (d === 0 ? null : ok[i] / d)),
    failures: [...failures.entries()].map(([code, count]) => ({ code, count })).sort((a, b) => b.count - a.count),
    byProvider: breakdown(payments, (p) => p.route.provider?.name ?? 'no provider', currency),
    byMethod: breakdown(payments, (p) => p.payment_method.type, currency),
    total: payments.length,
  };
}

function breakdown(payments: Payment[], keyOf: (p: Payment) => string, currency: string | null): Breakdown[] {
  const rows = new Map<string, Breakdown>();
  for (const p of payments) {
    const key = keyOf(p);
    const row = rows.get(key) ?? { key, count: 0, succeeded: 0, failed: 0, volume: 0 };
    row.count += 1;
    if (SUCCEEDED.has(p.status)) {
      row.succeeded += 1;
      if (p.currency === currency) row.volume += p.amount;
    }
    if (FAILED.has(p.status)) row.failed += 1;
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => b.count - a.count);
}
