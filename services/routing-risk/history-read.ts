import type { Scope } from '../../proto/gen/svc/common/v1/common_pb.js';
import type { RiskInput } from '../../proto/gen/svc/risk/v1/risk_pb.js';
import { scopeLearnsSql } from './learning-scopes.js';
import type { HistoryRow, PlanningCache } from './planning-cache.js';
import {
  HEALTH_READ_ATTEMPTS, HEALTH_READ_MINUTES, READ_WINDOW_MINUTES, bucketOf,
  type HealthHistory, type MinuteCounts, type SegmentHistory, type SegmentLevel,
} from './strategies/index.js';

// The outcome history part of the planning read (store.ts's planningInputs): the SQL, and with the
// planning cache the closed buckets kept in memory, so that only the bucket under way is read; and
// each account's newest attempts, for its health, read on every plan and never cached.

/**
 * The payment's outcome history per account, one row per minute and segment level (0: its country
 * and card network, 1: its country, 2: its method and currency; outcome-store.ts counts each level's
 * rows), for the learning strategies' windows (strategies/window-stats.ts), read only when a rule
 * of the scope learns. Parameters from $n: method, currency, country ('' unknown), card network
 * (null unknown), first minute.
 */
const historySql = (n: number) => {
  // One index range per level (the key's prefix, then the minutes): three lookups of the rows the
  // strategies read, whatever the planner's statistics say about the table.
  const level = (l: number, country: string, network: string) =>
    `SELECT ${l} AS level, provider_account_id, minute, succeeded, soft_declined, hard_declined, technical
     FROM outcome_minutes WHERE project_id = $2 AND mode = $3 AND payment_method = $${n} AND currency = $${n + 1}
       AND country = ${country} AND card_network = ${network} AND minute > $${n + 4}`;
  return `SELECT COALESCE(json_agg(json_build_array(h.provider_account_id, h.level, h.minute,
           h.succeeded, h.soft_declined, h.hard_declined, h.technical)), '[]') FROM (
    ${level(0, `$${n + 2}`, `$${n + 3}`)} UNION ALL ${level(1, `$${n + 2}`, "'*'")} UNION ALL ${level(2, "'*'", "'*'")}) h
    WHERE ${scopeLearnsSql('$1', '$2', '$3')}`;
};

function toHistory(rows: HistoryRow[]): SegmentHistory {
  const history: SegmentHistory = new Map();
  for (const [account, level, minute, succeeded, soft, hard, technical] of rows) {
    let levels = history.get(account);
    if (!levels) history.set(account, (levels = new Map()));
    let minutes = levels.get(level as SegmentLevel);
    if (!minutes) levels.set(level as SegmentLevel, (minutes = []));
    minutes.push({ minute: Number(minute), succeeded, soft, hard, technical } satisfies MinuteCounts);
  }
  return history;
}

/** The payment's segment as the planning read filters it. */
export interface HistoryKey {
  cardNetwork?: string;
  nowMinute: number;
}

/**
 * One plan's history read: its column of the planning statement (parameters from $n: `values`) and
 * what makes the history of the rows it returned. With the cache holding the segment's closed buckets
 * for the bucket under way, the statement reads from that bucket on and the closed ones are added;
 * without, it reads the whole window and the closed buckets are kept, unless something dropped
 * history meanwhile (planning-cache.ts).
 */
export function historyRead(cache: PlanningCache | undefined, scope: Scope, input: RiskInput, key: HistoryKey) {
  const segment = [input.paymentMethodType, input.currency, input.country ?? '', key.cardNetwork ?? null];
  const segmentKey = JSON.stringify(segment);
  const open = bucketOf(key.nowMinute);
  const first = key.nowMinute - READ_WINDOW_MINUTES;
  const closed = cache?.closed(scope, segmentKey, open);
  const since = closed ? undefined : cache?.readingHistory(open);
  return {
    column: (n: number) => `(${historySql(n)}) AS history`,
    values: [...segment, closed ? open - 1 : first],
    finish(rows: HistoryRow[]): SegmentHistory {
      if (closed) return toHistory([...closed.filter((h) => h[2] > first), ...rows]);
      if (since !== undefined) cache!.putClosed(scope, segmentKey, since, { openBucket: open, rows: rows.filter((h) => h[2] < open) });
      return toHistory(rows);
    },
  };
}

/**
 * Each of the scope's accounts' newest attempts in the payment's method and currency, newest first:
 * up to HEALTH_READ_ATTEMPTS within HEALTH_READ_MINUTES, aged by the database's clock, so every
 * replica reads the same health at the same moment, an outage counts from its first failure
 * whatever the bucket, and nothing in a process's memory can hide it. One index range per account
 * (migration 0012: account, segment, settled_at descending). Hard declines and policy refusals are
 * the card's and are not read. `accounts`: a FROM item of the scope's accounts with column
 * account_id; parameters from $n: method, currency (the history read's first two).
 */
export function healthColumn(accounts: string, n: number): string {
  return `(SELECT COALESCE(json_agg(json_build_array(a.account_id, o.ages, o.technical)), '[]')
    FROM ${accounts} CROSS JOIN LATERAL (
      SELECT array_agg(r.age ORDER BY r.settled_at DESC) AS ages,
        string_agg(CASE WHEN r.technical THEN 't' ELSE 'a' END, '' ORDER BY r.settled_at DESC) AS technical
      FROM (SELECT settled_at, greatest(0, round(extract(epoch FROM now() - settled_at)::numeric, 1))::float8 AS age,
              (status = 'failed' AND failure_category IS DISTINCT FROM 'soft') AS technical
            FROM attempt_outcomes
            WHERE project_id = $2 AND mode = $3 AND provider_account_id = a.account_id
              AND payment_method = $${n} AND currency = $${n + 1}
              AND settled_at > now() - interval '${HEALTH_READ_MINUTES} minutes'
              AND NOT (status = 'failed' AND failure_category IN ('hard', 'policy'))
            ORDER BY settled_at DESC LIMIT ${HEALTH_READ_ATTEMPTS}) r) o
    WHERE o.ages IS NOT NULL AND ${scopeLearnsSql('$1', '$2', '$3')}) AS health`;
}

/** The health column's rows as the strategies read them (account-health.ts). */
export function toHealth(rows: [account: string, ages: number[], technical: string][]): HealthHistory {
  return new Map(rows.map(([account, ages, technical]) =>
    [account, ages.map((ageSeconds, i) => ({ ageSeconds, technical: technical[i] === 't' }))]));
}
