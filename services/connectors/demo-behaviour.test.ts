import assert from 'node:assert/strict';
import { test } from 'node:test';
import { behaviourPlay, type DemoBehaviour } from './demo-behaviour.js';

const now = new Date('2026-11-28T10:00:00Z');
const behaviour = (b: Partial<DemoBehaviour>): DemoBehaviour =>
  ({ approvalRate: 1, technicalErrorRate: 0, latencyMs: 0, outageUntil: null, lateSuccessRate: 0, ...b });
const plays = (b: DemoBehaviour, n = 20_000) => {
  const counts: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const play = behaviourPlay(b, `att_${i.toString(36)}`, now);
    counts[play] = (counts[play] ?? 0) + 1;
  }
  return counts;
};

test('the rates are shares of attempts: technical errors of all, approvals of the rest', () => {
  // 20,000 draws: a share's standard deviation is at most 0.35 points, so 1.5 points is > 4 of them.
  const c = plays(behaviour({ approvalRate: 0.8, technicalErrorRate: 0.1 }));
  assert.ok(Math.abs(c.technical_error! / 20_000 - 0.1) < 0.015, JSON.stringify(c));
  assert.ok(Math.abs(c.approve! / (c.approve! + c.soft_decline!) - 0.8) < 0.015, JSON.stringify(c));
  assert.deepEqual(Object.keys(plays(behaviour({ approvalRate: 1 }))), ['approve']);
  assert.deepEqual(Object.keys(plays(behaviour({ approvalRate: 0 }))), ['soft_decline']);
  assert.deepEqual(Object.keys(plays(behaviour({ technicalErrorRate: 1 }))), ['technical_error']);
});

test('late successes are a share of the attempts that do not fail technically: the provider never received them', () => {
  const c = plays(behaviour({ technicalErrorRate: 0.2, lateSuccessRate: 0.25 }));
  assert.ok(Math.abs(c.technical_error! / 20_000 - 0.2) < 0.015, JSON.stringify(c));
  assert.ok(Math.abs(c.timeout_not_received! / (20_000 - c.technical_error!) - 0.25) < 0.015, JSON.stringify(c));
  assert.deepEqual(Object.keys(plays(behaviour({ lateSuccessRate: 1 }), 200)), ['timeout_not_received']);
});

test('an attempt draws the same each time it is asked, so its status query agrees', () => {
  const b = behaviour({ approvalRate: 0.5 });
  for (let i = 0; i < 100; i++) assert.equal(behaviourPlay(b, `att_${i}`, now), behaviourPlay(b, `att_${i}`, now));
});

test('during an outage every attempt is unavailable; at its end the rates hold again', () => {
  const b = behaviour({ outageUntil: new Date(now.getTime() + 60_000) });
  assert.deepEqual(Object.keys(plays(b, 200)), ['unavailable']);
  assert.deepEqual(Object.keys(plays(behaviour({ outageUntil: now }), 200)), ['approve']);
});
