import assert from 'node:assert/strict';
import { test } from 'node:test';
import { monotonicIds, successor } from './timeline.js';

test('successor: the next id in sort order, with carry', () => {
  assert.equal(successor('tle_00000000000000000000000000'), 'tle_00000000000000000000000001');
  assert.equal(successor('tle_0000000000000000000000000z'), 'tle_00000000000000000000000010');
  assert.equal(successor('tle_000000000000000000000009zz'), 'tle_00000000000000000000000a00');
  assert.throws(() => successor('tle_zz'));
});

test('monotonic ids sort in the order they were made, within one millisecond and when the clock steps back', () => {
  const next = monotonicIds();
  const at = new Date('2030-01-01T00:00:00.000Z');
  const ids = [
    ...Array.from({ length: 50 }, () => next(at)),
    next(new Date(at.getTime() - 60_000)),
    next(new Date(at.getTime() + 1)),
  ];
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids) assert.match(id, /^tle_[0-9a-hjkmnp-tv-z]{26}$/);
});
