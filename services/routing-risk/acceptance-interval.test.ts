import assert from 'node:assert/strict';
import { test } from 'node:test';
import { differenceInterval, wilsonInterval } from './acceptance-interval.js';

const near = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 0.00005, `${what}: ${actual.toFixed(5)}, expected ${expected}`);

// Published values: Newcombe, "Two-sided confidence intervals for the single proportion" (Stat Med
// 1998;17:857–872), Table II, method 3 (Wilson score, no continuity correction).
test('Wilson\'s score interval matches Newcombe\'s published examples to four places', () => {
  const cases: Array<[number, number, number, number]> = [
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ];
  for (const [s, n, low, high] of cases) {
    const i = wilsonInterval(s, n);
    near(i.low, low, `${s}/${n} low`);
    near(i.high, high, `${s}/${n} high`);
  }
});

test('the interval stays within [0, 1] and is symmetric in successes and failures', () => {
  const all = wilsonInterval(29, 29);
  assert.equal(all.high, 1);
  const none = wilsonInterval(0, 29);
  near(all.low, 1 - none.high, '29/29 mirrors 0/29');
  assert.throws(() => wilsonInterval(1, 0), RangeError);
  assert.throws(() => wilsonInterval(5, 4), RangeError);
});

// Newcombe, "Interval estimation for the difference between independent proportions" (Stat Med
// 1998;17:873–890), Table II, method 10 (hybrid score, no continuity correction).
test('the difference\'s interval matches Newcombe\'s hybrid score examples', () => {
  const cases: Array<[[number, number, number, number], number, number]> = [
    [[56, 70, 48, 80], 0.0524, 0.3339],
    [[9, 10, 3, 10], 0.1705, 0.8090],
    [[6, 7, 2, 7], 0.0582, 0.8062],
    [[5, 56, 0, 29], -0.0381, 0.1926],
    [[0, 10, 0, 20], -0.1611, 0.2775],
    [[10, 10, 0, 20], 0.6791, 1],
  ];
  for (const [args, low, high] of cases) {
    const d = differenceInterval(...args);
    near(d.difference, args[0] / args[1] - args[2] / args[3], `${args} difference`);
    near(d.low, low, `${args} low`);
    near(d.high, high, `${args} high`);
  }
});
