import assert from 'node:assert/strict';
import { test } from 'node:test';
import { attemptsSince, healthWindow, pooledTechnicalShare, probeDue, recentHealth } from './account-health.js';
import { DEFAULT_SETTINGS, type RecentAttempt } from './index.js';

/** Newest first, `gap` seconds apart: 't' a technical failure, 'a' an answered attempt. */
const attempts = (pattern: string, gap = 1, firstAge = 0): RecentAttempt[] =>
  [...pattern].map((c, i) => ({ ageSeconds: firstAge + i * gap, technical: c === 't' }));
const s = DEFAULT_SETTINGS;

test('health reads the newest attempts: up to eliminationAttempts, within eliminationMinutes, further back for too few', () => {
  assert.equal(healthWindow(attempts('a'.repeat(50)), s).length, 20, 'by count');
  // One every minute: the 5 minutes hold 5, which is eliminationMinSample: no further.
  assert.equal(healthWindow(attempts('a'.repeat(50), 60), s).length, 5, 'by time');
  // One every 10 minutes: back until 5 of them, but not beyond six times the window (30 minutes).
  assert.equal(healthWindow(attempts('a'.repeat(50), 600), s).length, 3);
  assert.equal(healthWindow(undefined, s).length, 0);
});

test('an outage counts from its first failure, whatever came before it', () => {
  // 186 answered attempts earlier in the same five minutes do not dilute it: 10 failures in a row
  // are half of the newest 20, which eliminates.
  const h = recentHealth(attempts(`${'t'.repeat(10)}${'a'.repeat(186)}`), s);
  assert.deepEqual([h.sample, h.technical, h.share, h.recovered], [20, 10, 0.5, false]);
  assert.equal(recentHealth(attempts(`ttt${'a'.repeat(30)}`), s).share, 0.15, 'three failures already weigh');
});

test('recovery: two answered attempts after an outage forgive its failures; scattered failures are never forgiven', () => {
  const back = recentHealth(attempts(`aa${'t'.repeat(18)}`), s);
  assert.deepEqual([back.sample, back.technical, back.share, back.recovered], [2, 0, 0, true]);
  // Still forgiven as its answered attempts accumulate and a later single failure arrives.
  assert.equal(recentHealth(attempts(`${'a'.repeat(11)}${'t'.repeat(20)}`), s).share, 0);
  assert.equal(recentHealth(attempts(`${'a'.repeat(17)}${'t'.repeat(20)}`), s).share, 0, 'still forgiven as the window fills with answered attempts');
  assert.equal(recentHealth(attempts(`taaaaa${'t'.repeat(14)}`), s).share, 1 / 6);
  assert.equal(recentHealth(attempts('aaaaaaaaat'), s).share, 0.1, 'one failure is no outage');
  assert.equal(recentHealth(attempts(`at${'t'.repeat(18)}`), s).share, 19 / 20, 'one answered attempt is not enough');
  // A provider failing 10 % of the time keeps paying for it.
  const flaky = recentHealth(attempts('aataaaaaaaaataaaaaaa'), s);
  assert.deepEqual([flaky.share, flaky.recovered], [0.1, false]);
});

test('an unknown account is judged on the pooled technical share; probes come once every 1/share attempts', () => {
  const history = new Map([['x', attempts('ttaaaaaaaa')], ['y', attempts('aaaaaaaaaa')]]);
  assert.equal(pooledTechnicalShare(history, ['x', 'y', 'z'], s), 0.1);
  const down = new Map([['x', attempts('tttttttttt', 1, 30)], ['y', attempts('a'.repeat(24))], ['z', attempts('a')]]);
  assert.equal(attemptsSince(down, 'x', ['y', 'z']), 25);
  assert.equal(probeDue(down, 'x', ['y', 'z'], 0.04), true);
  assert.equal(probeDue(down, 'x', ['y'], 0.04), false, '24 attempts: not yet');
  assert.equal(probeDue(down, 'x', ['y', 'z'], 0), false, 'share 0: never');
  // Moved down by three failures without being eliminated: probed all the same.
  const demoted = new Map([['x', attempts(`ttt${'a'.repeat(17)}`, 1, 30)], ['y', attempts('a'.repeat(25))]]);
  assert.equal(recentHealth(demoted.get('x'), s).share, 0.15);
  assert.equal(probeDue(demoted, 'x', ['y'], 0.04), true);
  // One probe answered after the streak: the next payment confirms it; two answered: nothing to probe.
  assert.equal(probeDue(new Map([['x', attempts('attt')]]), 'x', [], 0.04), true);
  assert.equal(probeDue(new Map([['x', attempts('aattt')]]), 'x', [], 0.04), false);
  assert.equal(probeDue(new Map([['x', attempts('ataaa')]]), 'x', [], 0.04), false, 'after a lone failure, nothing to confirm');
});
