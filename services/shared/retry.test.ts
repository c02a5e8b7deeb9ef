import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from './logger.js';
import { isUnreachable, retryAtStart } from './retry.js';

const logger = createLogger('test', 'silent');

test('start-up waits out an unreachable dependency and reports anything else at once', async () => {
  let calls = 0;
  const result = await retryAtStart('Postgres', async () => {
    calls++;
    if (calls < 3) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    return 'up';
  }, { logger, initialMs: 1 });
  assert.equal(result, 'up');
  assert.equal(calls, 3);

  let refused = 0;
  await assert.rejects(retryAtStart('Postgres', async () => {
    refused++;
    throw Object.assign(new Error('password authentication failed'), { code: '28P01' });
  }, { logger, initialMs: 1 }), /password authentication failed/);
  assert.equal(refused, 1);
});

test('what counts as not reachable yet', () => {
  assert.ok(isUnreachable(Object.assign(new Error('x'), { code: 'CONNECTION_REFUSED' })));
  assert.ok(isUnreachable(Object.assign(new Error('starting up'), { code: '57P03' })));
  assert.ok(isUnreachable(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })])));
  assert.ok(!isUnreachable(new Error('migration payments/0001.sql failed: syntax error')));
  assert.ok(!isUnreachable(Object.assign(new Error('x'), { code: 'AUTHORIZATION_VIOLATION' })));
});
