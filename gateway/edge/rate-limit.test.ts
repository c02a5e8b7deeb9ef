import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { msUntilAdmits, remainingCapacity, resetSeconds, type WindowCounts } from './rate-limit.js';

const W = 60_000;

// The admission rule, restated independently and allowed to roll into
// later minutes: the reference the closed-form arithmetic is checked against.
function fitsAt(c: WindowCounts, limit: number, n: number, dtMs: number): boolean {
  const t = c.elapsedMs + dtMs;
  if (t < W) return c.previous * (W - t) + (c.current + n) * W <= limit * W;
  if (t < 2 * W) return c.current * (W - (t - W)) + n * W <= limit * W;
  return n <= limit;
}

function bruteMsUntil(c: WindowCounts, limit: number, n: number): number {
  for (let dt = 0; dt <= 2 * W; dt++) if (fitsAt(c, limit, n, dt)) return dt;
  return Infinity;
}

// A small deterministic generator, so a failure reproduces.
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const counts = (previous: number, current: number, elapsedMs: number, admitted = true): WindowCounts => ({
  admitted, previous, current, elapsedMs,
});

describe('rate-limit window arithmetic', () => {
  it('counts the previous minute by the share of it still inside the rolling window', () => {
    // 10 s into the minute, 5/6 of the previous minute is still inside the last 60 s.
    assert.equal(remainingCapacity(counts(6, 1, 10_000), 10), 4); // 10 - 1 - 6·5/6
    assert.equal(remainingCapacity(counts(6, 1, 0), 10), 3); // the whole previous minute still counts
    assert.equal(remainingCapacity(counts(6, 1, 59_999), 10), 8); // almost none of it does
    assert.equal(remainingCapacity(counts(0, 10, 30_000), 10), 0);
  });

  it('reports no remaining capacity after a refusal, whatever the snapshot said', () => {
    assert.equal(remainingCapacity(counts(0, 3, 0, false), 10), 0);
  });

  it('remaining is exactly how many more requests the admission rule takes at that instant', () => {
    const next = random(7);
    let checked = 0;
    for (let i = 0; i < 2000; i++) {
      const limit = 1 + Math.floor(next() * 20);
      const c = counts(Math.floor(next() * 25), 1 + Math.floor(next() * limit), Math.floor(next() * W));
      if (!fitsAt({ ...c, current: c.current - 1 }, limit, 1, 0)) continue; // only states an admission can leave
      let more = 0;
      while (fitsAt(c, limit, more + 1, 0)) more++;
      assert.equal(remainingCapacity(c, limit), more, JSON.stringify({ c, limit }));
      checked++;
    }
    assert.ok(checked > 300, `only ${checked} reachable states were generated`);
  });

  it('finds the first millisecond at which n more requests fit, within the minute and across the boundary', () => {
    const next = random(42);
    for (let i = 0; i < 300; i++) {
      const limit = 1 + Math.floor(next() * 12);
      const c = counts(Math.floor(next() * 15), Math.floor(next() * (limit + 3)), Math.floor(next() * W));
      const n = 1 + Math.floor(next() * limit);
      assert.equal(msUntilAdmits(c, limit, n), bruteMsUntil(c, limit, n), JSON.stringify({ c, limit, n }));
    }
    assert.equal(msUntilAdmits(counts(0, 0, 0), 3, 4), Infinity);
  });

  it('after a refusal, reset (and Retry-After) is the wait until one request fits, at least a second', () => {
    // 5 requests last minute, ceiling 5, at the boundary: the 6th fits once 1/5 of the minute has gone.
    assert.equal(resetSeconds(counts(5, 0, 0, false), 5), 12);
    // Full in this minute alone: wait into the next one until the 5 have decayed to 4.
    assert.equal(resetSeconds(counts(0, 5, 50_000, false), 5), 22); // 10 s to the boundary + 12 s
    // A concurrent replica may refuse on a snapshot that already looks free: never answer 0.
    assert.equal(resetSeconds(counts(0, 0, 0, false), 5), 1);
    // A ceiling of 1 spent at the start of a minute frees up two minutes later: told the window's 60 s.
    assert.equal(msUntilAdmits(counts(0, 1, 0, false), 1, 1), 120_000);
    assert.equal(resetSeconds(counts(0, 1, 0, false), 1), 60);
  });

  it('while requests are admitted, reset is the wait until remaining next rises, at most 60 s', () => {
    // One request this minute and nothing before: it ages out only at the end of the next minute,
    // 90 s away; the header never says more than the window's length.
    assert.equal(resetSeconds(counts(0, 1, 30_000), 1000), 60);
    // Previous minute had 60: one of them drops out of the window every second.
    assert.equal(resetSeconds(counts(60, 1, 30_000), 100), 1);
  });
});
