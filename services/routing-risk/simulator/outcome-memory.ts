// The simulator's outcome history: what migration 0008's outcome_minutes (five-minute buckets) and the planning read's
// history query hold and return, kept in memory so a synthetic day replays in seconds. The
// classification (outcomeKind), the windows, the segment fallback and the strategies are the
// services' own code; only the bucket-and-level grouping below mirrors the SQL (history-read.ts's
// historySql), and test/routing-history.test.ts holds the Postgres path to the same counts. Each
// account's newest attempts, for its health, are kept by the second as history-read.ts's
// healthColumn reads them from attempt_outcomes.
import {
  BUCKET_MINUTES, HEALTH_READ_ATTEMPTS, HEALTH_READ_MINUTES, READ_WINDOW_MINUTES, bucketOf,
  type HealthHistory, type MinuteCounts, type OutcomeKind, type SegmentHistory, type SegmentLevel,
} from '../strategies/index.js';

export interface SimSegment {
  method: string;
  currency: string;
  country: string;
  cardNetwork: string;
}

interface Row extends SimSegment {
  account: string;
  counts: Record<OutcomeKind, number>;
}

export class OutcomeMemory {
  /** method|currency → minute → rows (one per account, country and network). */
  private readonly byMinute = new Map<string, Map<number, Map<string, Row>>>();

  /** method|currency|account → its attempts (second, technical), oldest first; hard declines left out. */
  private readonly attempts = new Map<string, { second: number; technical: boolean }[]>();

  record(account: string, s: SimSegment, kind: OutcomeKind, second: number): void {
    const minute = bucketOf(Math.floor(second / 60));
    const key = `${s.method}|${s.currency}`;
    if (kind !== 'hard') {
      const attemptsKey = `${key}|${account}`;
      let list = this.attempts.get(attemptsKey);
      if (!list) this.attempts.set(attemptsKey, (list = []));
      list.push({ second, technical: kind === 'technical' });
    }
    let minutes = this.byMinute.get(key);
    if (!minutes) this.byMinute.set(key, (minutes = new Map()));
    let rows = minutes.get(minute);
    if (!rows) minutes.set(minute, (rows = new Map()));
    const rowKey = `${account}|${s.country}|${s.cardNetwork}`;
    let row = rows.get(rowKey);
    if (!row) rows.set(rowKey, (row = { ...s, account, counts: { succeeded: 0, soft: 0, hard: 0, technical: 0 } }));
    row.counts[kind] += 1;
  }

  /** The planning read's health column for a payment of segment `s` at `nowSecond`, newest first. */
  health(s: SimSegment, accounts: string[], nowSecond: number): HealthHistory {
    const health: HealthHistory = new Map();
    for (const account of accounts) {
      const list = this.attempts.get(`${s.method}|${s.currency}|${account}`) ?? [];
      const newest = [];
      for (let i = list.length - 1; i >= 0 && newest.length < HEALTH_READ_ATTEMPTS; i--) {
        const ageSeconds = nowSecond - list[i]!.second;
        if (ageSeconds >= HEALTH_READ_MINUTES * 60) break;
        newest.push({ ageSeconds, technical: list[i]!.technical });
      }
      if (newest.length > 0) health.set(account, newest);
    }
    return health;
  }

  /** The planning read's history for a payment of segment `s` at `nowMinute`. */
  history(s: SimSegment, nowMinute: number): SegmentHistory {
    const history: SegmentHistory = new Map();
    const minutes = this.byMinute.get(`${s.method}|${s.currency}`);
    if (!minutes) return history;
    for (let minute = bucketOf(nowMinute - READ_WINDOW_MINUTES + BUCKET_MINUTES); minute <= nowMinute; minute += BUCKET_MINUTES) {
      if (minute <= nowMinute - READ_WINDOW_MINUTES) continue;
      const rows = minutes.get(minute);
      if (!rows) continue;
      for (const row of rows.values()) {
        const levels: SegmentLevel[] = [2];
        if (row.country === s.country) levels.push(1);
        if (row.country === s.country && row.cardNetwork === s.cardNetwork) levels.push(0);
        for (const level of levels) add(history, row.account, level, minute, row.counts);
      }
    }
    return history;
  }
}

function add(history: SegmentHistory, account: string, level: SegmentLevel, minute: number, c: Record<OutcomeKind, number>): void {
  let levels = history.get(account);
  if (!levels) history.set(account, (levels = new Map()));
  let list = levels.get(level);
  if (!list) levels.set(level, (list = []));
  let m: MinuteCounts | undefined = list[list.length - 1];
  if (!m || m.minute !== minute) list.push((m = { minute, succeeded: 0, soft: 0, hard: 0, technical: 0 }));
  m.succeeded += c.succeeded;
  m.soft += c.soft;
  m.hard += c.hard;
  m.technical += c.technical;
}
