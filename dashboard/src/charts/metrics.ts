import type { Payment } from '../api/types';

// The home page's figures, computed in the browser from the payments list (see docs/decisions.md,
// "Dashboard home charts" and "Home figures are per currency"): for one currency at a time, the
// headline (gross, refunds, fees, net, payments, success rate, disputed volume and dispute rate),
// buckets of an hour (last day) or a day (week, month) of succeeded volume and success rate,
// failure reasons, and the same by provider and by method. Amounts of different currencies are
// never added together.

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

export interface Headline {
  /** Captured amount of the succeeded payments. */
  gross: number;
  refunded: number;
  fees: number;
  /** gross − refunded − fees. */
  net: number;
  payments: number;
  successRate: number | null;
  /** Disputes of the period's payments, whatever their status, and the amount they dispute. */
  disputes: number;
  disputed: number;
  /** disputes / succeeded payments of the period (docs/decisions/2026-12-07-disputes-in-the-dashboard-and-the-evidence-deadline.md, "Home's dispute figures"). */
  disputeRate: number | null;
}

export interface Metrics {
  currency: string;
  headline: Headline;
  /** Bucket start times in seconds, as uPlot wants them. */
  times: number[];
  volume: number[];
  successRate: (number | null)[];
  /** Failed payments by why: the provider's decline reason, else the failure code (a technical failure has no decline reason). */
  failures: { reason: string; count: number }[];
  byProvider: Breakdown[];
  byMethod: Breakdown[];
}

/** The currencies of the payments, most used first (the home page's selector and its default). */
export function currenciesOf(payments: Payment[]): string[] {
  const counts = new Map<string, number>();
  for (const p of payments) counts.set(p.currency.toUpperCase(), (counts.get(p.currency.toUpperCase()) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([c]) => c);
}

const captured = (p: Payment) => p.captured_amount || p.amount;
const failureReason = (p: Payment) => p.failure?.decline_reason ?? p.failure?.code ?? 'unknown';

/** The figures of the payments in `currency` alone; payments in other currencies are left out of every one. */
export function metrics(all: Payment[], currency: string, period: Period, now: number): Metrics {
  const payments = all.filter((p) => p.currency.toUpperCase() === currency);
  const { span, bucket } = PERIODS[period];
  // Buckets end at `now`'s bucket, so the current hour or day is the last bar and is drawn whole.
  const n = Math.round(span / bucket);
  const start = (Math.floor(now / bucket) - n + 1) * bucket;
  const times = Array.from({ length: n }, (_, i) => (start + i * bucket) / 1000);
  const volume = new Array<number>(n).fill(0);
  const ok = new Array<number>(n).fill(0);
  const decided = new Array<number>(n).fill(0);
  const failures = new Map<string, number>();
  const headline: Headline = {
    gross: 0, refunded: 0, fees: 0, net: 0, payments: payments.length, successRate: null, disputes: 0, disputed: 0, disputeRate: null,
  };
  let succeededTotal = 0;
  for (const p of payments) {
    const succeeded = SUCCEEDED.has(p.status);
    const failed = FAILED.has(p.status);
    if (succeeded) {
      headline.gross += captured(p);
      headline.refunded += p.refunded_amount;
      succeededTotal += 1;
    }
    for (const d of p.disputes ?? []) {
      headline.disputes += 1;
      headline.disputed += d.amount;
    }
    headline.fees += p.fee.amount;
    if (failed) failures.set(failureReason(p), (failures.get(failureReason(p)) ?? 0) + 1);
    const i = Math.floor((Date.parse(p.created_at) - start) / bucket);
    if (i < 0 || i >= n) continue;
    if (succeeded) volume[i] += captured(p);
    if (succeeded || failed) decided[i] += 1;
    if (succeeded) ok[i] += 1;
  }
  headline.net = headline.gross - headline.refunded - headline.fees;
  const okTotal = ok.reduce((a, b) => a + b, 0);
  const decidedTotal = decided.reduce((a, b) => a + b, 0);
  headline.successRate = decidedTotal === 0 ? null : okTotal / decidedTotal;
  headline.disputeRate = succeededTotal === 0 ? null : headline.disputes / succeededTotal;
  return {
    currency,
    headline,
    times,
    volume,
    successRate: decided.map((d, i) => (d === 0 ? null : ok[i] / d)),
    failures: [...failures.entries()].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count),
    byProvider: breakdown(payments, (p) => p.route.provider?.name ?? 'no provider'),
    byMethod: breakdown(payments, (p) => p.payment_method.type),
  };
}

function breakdown(payments: Payment[], keyOf: (p: Payment) => string): Breakdown[] {
  const rows = new Map<string, Breakdown>();
  for (const p of payments) {
    const key = keyOf(p);
    const row = rows.get(key) ?? { key, count: 0, succeeded: 0, failed: 0, volume: 0 };
    row.count += 1;
    if (SUCCEEDED.has(p.status)) {
      row.succeeded += 1;
      row.volume += captured(p);
    }
    if (FAILED.has(p.status)) row.failed += 1;
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => b.count - a.count);
}
