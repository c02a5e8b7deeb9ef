import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPlanningCache, scopeKey, type HistoryRow, type ScopeInputs } from './planning-cache.js';

const scope = { merchantId: 'mer_1', projectId: 'prj_1', mode: 'test' };
const other = { merchantId: 'mer_1', projectId: 'prj_2', mode: 'test' };
const inputs: ScopeInputs = { accounts: [], rules: [] };

test('nothing is kept or served while the cache is not live, and going live or off starts empty', () => {
  const cache = createPlanningCache();
  cache.put(scope, cache.reading(), inputs);
  assert.equal(cache.get(scope), undefined);
  cache.setLive(true);
  cache.put(scope, cache.reading(), inputs);
  assert.equal(cache.get(scope), inputs);
  cache.setLive(false);
  assert.equal(cache.get(scope), undefined);
  cache.setLive(true);
  assert.equal(cache.get(scope), undefined);
});

test('a read overtaken by any drop is not kept; a drop names one scope or, with *, all', () => {
  const cache = createPlanningCache();
  cache.setLive(true);
  const since = cache.reading();
  cache.drop(scopeKey(other));
  cache.put(scope, since, inputs);
  assert.equal(cache.get(scope), undefined, 'the read began before a drop');

  cache.put(scope, cache.reading(), inputs);
  cache.put(other, cache.reading(), inputs);
  cache.drop(scopeKey(other));
  assert.equal(cache.get(scope), inputs);
  assert.equal(cache.get(other), undefined);
  cache.drop('*');
  assert.equal(cache.get(scope), undefined);
});

test('an entry older than the TTL is not served', () => {
  let now = 1_000;
  const cache = createPlanningCache(100, () => now);
  cache.setLive(true);
  cache.put(scope, cache.reading(), inputs);
  now += 99;
  assert.equal(cache.get(scope), inputs);
  now += 1;
  assert.equal(cache.get(scope), undefined);
});

test('closed buckets serve only the bucket they were read under; a count into them drops them, one into the open bucket does not', () => {
  const cache = createPlanningCache();
  cache.setLive(true);
  const rows: HistoryRow[] = [['pac_a', 0, 95, 1, 0, 0, 0]];
  cache.putClosed(scope, 'card', cache.readingHistory(100), { openBucket: 100, rows });
  assert.equal(cache.closed(scope, 'card', 100), rows);
  assert.equal(cache.closed(scope, 'card', 105), undefined, 'a new bucket under way: read them again');
  cache.late('prj_1', 'test', 100);
  assert.equal(cache.closed(scope, 'card', 100), rows);
  cache.late('prj_2', 'test', 95);
  assert.equal(cache.closed(scope, 'card', 100), rows, 'another project');
  cache.late('prj_1', 'test', 95);
  assert.equal(cache.closed(scope, 'card', 100), undefined);

  const since = cache.readingHistory(100);
  cache.late('prj_2', 'test', 90);
  cache.putClosed(scope, 'card', since, { openBucket: 100, rows });
  assert.equal(cache.closed(scope, 'card', 100), undefined, 'a late count during the read');
  cache.putClosed(scope, 'card', cache.readingHistory(100), { openBucket: 100, rows });
  cache.drop(scopeKey(scope));
  assert.equal(cache.closed(scope, 'card', 100), undefined, 'a scope dropped takes its history');
});
