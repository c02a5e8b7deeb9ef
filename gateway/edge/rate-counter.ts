import type { CountedMinute, WindowRow } from '../store/index.js';
import { minuteCeiling, RATE_WINDOW_MS, windowOf, type WindowCounts } from './rate-limit.js';

// Rate-limit counts kept in memory per replica and reconciled through Postgres at most
// RATE_FLUSH_MS after a request is counted (not at all while none is), so most requests are
// counted without a round trip. A replica admits a request from
// memory only while (a) it knows the key's current and previous minute as Postgres last told it,
// (b) its own admissions not yet written stay under one flush interval's share of the ceiling
// (⌊limit × RATE_FLUSH_MS / 60 s⌋), and (c) the rule (rate-limit.ts) admits it on those counts.
// Otherwise the key's minute is counted in Postgres at once, exactly as one statement against the
// row's lock (store/rate-limits.ts countMinute), with the requests of the key that arrived meanwhile.
// Counts in Postgres only grow by admissions that some replica decided, and each replica's
// admissions that Postgres has not seen are at most its share: so however stale a replica's counts,
// across R replicas a key is admitted at most R × ⌊limit × RATE_FLUSH_MS / 60 s⌋ past its ceiling
// in a rolling window (docs/performance.md). A key whose share is under one request (a ceiling
// below 600 a minute) is counted in Postgres on every request, exactly as before. Refusals are
// always decided in Postgres, so a stale count never refuses a request the ceiling allows.

/** How soon after counting a request a replica writes its counts and reads the others'. */
export const RATE_FLUSH_MS = 100;
const W = RATE_WINDOW_MS;

interface Minute {
  /** The minute's count in Postgres when last read (every replica's). */
  shared: number;
  /** This replica's admissions not yet written (less counts given back). */
  pending: number;
  /** Written by a statement under way. */
  writing: number;
  known: boolean;
  /** Counted since the last reconciliation: read again by the next one. */
  touched: boolean;
}

interface Waiting {
  start: number;
  elapsedMs: number;
  limit: number;
  resolve(counts: WindowCounts): void;
  reject(err: unknown): void;
}

export interface CountStatements {
  reconcileCounts(rows: Array<{ keyId: string; start: Date; delta: number }>): Promise<WindowRow[]>;
  countMinute(keyId: string, start: Date, previousStart: Date, delta: number, wanted: number, ceiling: number): Promise<CountedMinute | undefined>;
  sweepCounts(before: Date): Promise<number>;
}

const id = (keyId: string, start: number) => `${keyId} ${start}`;

export function createRateCounter(store: CountStatements, flushMs = RATE_FLUSH_MS) {
  const minutes = new Map<string, Minute>();
  // Keys being counted in Postgres, with the requests waiting for the next statement.
  const queues = new Map<string, Waiting[]>();
  let sweptBefore = 0;

  function minute(keyId: string, start: number): Minute {
    let m = minutes.get(id(keyId, start));
    if (!m) minutes.set(id(keyId, start), (m = { shared: 0, pending: 0, writing: 0, known: false, touched: true }));
    return m;
  }

  /** The minute's count as this replica knows it: Postgres's, and its own not yet there. */
  const counted = (m: Minute) => m.shared + m.writing + m.pending;

  async function countGroup(keyId: string, group: Waiting[]): Promise<void> {
    const { start, limit, elapsedMs } = group[0];
    const [cur, prev] = [minute(keyId, start), minute(keyId, start - W)];
    const delta = cur.pending;
    cur.pending -= delta;
    cur.writing += delta;
    let r: CountedMinute | undefined;
    try {
      const ceiling = minuteCeiling(prev.known ? counted(prev) : 0, elapsedMs, limit);
      r = await store.countMinute(keyId, new Date(start), new Date(start - W), delta, group.length, ceiling);
    } catch (err) {
      cur.pending += delta;
      throw err;
    } finally {
      cur.writing -= delta;
    }
    if (!r) return group.forEach((w) => w.resolve({ admitted: false, previous: 0, current: 0, elapsedMs: w.elapsedMs }));
    const previous = r.previous + prev.pending + prev.writing;
    // The ceiling was computed from the previous minute as this replica knew it: what the minute
    // as Postgres has it does not allow is given back (at the next reconciliation).
    const over = Math.max(0, Math.min(r.count - r.before, r.count - minuteCeiling(previous, elapsedMs, limit)));
    const granted = r.count - r.before - over;
    cur.pending -= over;
    Object.assign(cur, { shared: r.count, known: true });
    Object.assign(prev, { shared: r.previous, known: true });
    group.forEach((w, i) => w.resolve(i < granted
      ? { admitted: true, previous, current: r.before + i + 1, elapsedMs: w.elapsedMs }
      : { admitted: false, previous, current: r.count - over, elapsedMs: w.elapsedMs }));
  }

  async function drain(keyId: string, queue: Waiting[]): Promise<void> {
    while (queue.length > 0) {
      // One statement per minute and ceiling: the leading requests that share them, in arrival order,
      // judged at the first one's time (the earliest: within a minute the ceiling only grows, so
      // none is admitted that alone would be refused).
      let n = 1;
      while (n < queue.length && queue[n].start === queue[0].start && queue[n].limit === queue[0].limit) n++;
      const group = queue.splice(0, n);
      await countGroup(keyId, group).catch((err) => group.forEach((w) => w.reject(err)));
    }
    queues.delete(keyId);
  }

  function countInPostgres(keyId: string, waiting: Omit<Waiting, 'resolve' | 'reject'>): Promise<WindowCounts> {
    return new Promise((resolve, reject) => {
      const queue = queues.get(keyId);
      if (queue) return void queue.push({ ...waiting, resolve, reject });
      const fresh = [{ ...waiting, resolve, reject }];
      queues.set(keyId, fresh);
      void drain(keyId, fresh);
    });
  }

  return {
    /** Counts a request of the key at `at` against `limit`: admitted, or refused counting nothing. */
    count(keyId: string, limit: number, at: Date): WindowCounts | Promise<WindowCounts> {
      const { start, elapsedMs } = windowOf(at);
      const [cur, prev] = [minute(keyId, start), minute(keyId, start - W)];
      cur.touched = prev.touched = true;
      const share = Math.floor((limit * flushMs) / W);
      if (cur.known && prev.known && cur.pending + cur.writing < share && !queues.has(keyId)) {
        const previous = counted(prev);
        const current = counted(cur) + 1;
        if (current <= minuteCeiling(previous, elapsedMs, limit)) {
          cur.pending++;
          return { admitted: true, previous, current, elapsedMs };
        }
      }
      return countInPostgres(keyId, { start, elapsedMs, limit });
    },

    /** Gives back an admitted request's count (refused after all, by the IP allow-list). */
    uncount(keyId: string, at: Date): void {
      minute(keyId, windowOf(at).start).pending--;
    },

    /**
     * Writes this replica's counts and reads every replica's for the minutes of the keys counted
     * since the last time: a key left idle costs nothing, and its next request counts on the counts
     * last read, within its share, until this reads them again. Forgets older minutes once written,
     * and once a minute deletes them from Postgres.
     */
    async reconcile(now: Date): Promise<void> {
      const { start } = windowOf(now);
      const rows: Array<{ keyId: string; start: Date; delta: number; minute: Minute }> = [];
      for (const [name, m] of minutes) {
        const [keyId, s] = name.split(' ');
        if (Number(s) < start - W && m.pending === 0 && m.writing === 0) minutes.delete(name);
        else if ((m.touched || m.pending !== 0) && !queues.has(keyId)) {
          m.touched = false;
          rows.push({ keyId, start: new Date(Number(s)), delta: m.pending, minute: m });
        }
      }
      rows.sort((a, b) => (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : a.start.getTime() - b.start.getTime()));
      for (const r of rows) {
        r.minute.pending -= r.delta;
        r.minute.writing += r.delta;
      }
      let totals: WindowRow[];
      try {
        totals = rows.length > 0 ? await store.reconcileCounts(rows) : [];
      } catch (err) {
        for (const r of rows) Object.assign(r.minute, { pending: r.minute.pending + r.delta, touched: true });
        throw err;
      } finally {
        for (const r of rows) r.minute.writing -= r.delta;
      }
      const read = new Map(totals.map((t) => [id(t.keyId, t.start.getTime()), t.count]));
      for (const r of rows) Object.assign(r.minute, { shared: read.get(id(r.keyId, r.start.getTime())) ?? 0, known: true });
      if (sweptBefore < start - W) {
        sweptBefore = start - W;
        await store.sweepCounts(new Date(sweptBefore));
      }
    },
  };
}

export type RateCounter = ReturnType<typeof createRateCounter>;
