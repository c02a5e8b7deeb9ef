import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from './config.js';
import { createLogger } from './logger.js';
import { StartUp, StepTimedOut, backoffMs, describeError, isPermanent } from './retry.js';

const logger = createLogger('test', 'silent');

test('a step waits out what may pass, and reports at once what waiting cannot fix', async () => {
  const startUp = new StartUp({ logger, timeoutMs: 60_000 });
  let calls = 0;
  const result = await startUp.step('NATS JetStream consumer ledger', async () => {
    calls++;
    if (calls < 3) throw Object.assign(new Error('TIMEOUT'), { code: 'TIMEOUT' });
    return 'up';
  });
  assert.equal(result, 'up');
  assert.equal(calls, 3);

  let refused = 0;
  await assert.rejects(startUp.step('Postgres connection', async () => {
    refused++;
    throw Object.assign(new Error('password authentication failed'), { code: '28P01' });
  }), /password authentication failed/);
  assert.equal(refused, 1);
  startUp.done();
});

test('a step that never succeeds gives up at the start timeout, naming the step and the error class', async () => {
  const startUp = new StartUp({ logger, timeoutMs: 1_000 });
  const started = Date.now();
  const err = await startUp.step('NATS JetStream stream check', async () => {
    throw Object.assign(new Error('503'), { code: '503' });
  }).catch((e: unknown) => e);
  assert.ok(err instanceof StepTimedOut);
  assert.equal(err.message, 'step "NATS JetStream stream check" did not succeed within 1 s (START_TIMEOUT_MS): Error 503: 503');
  assert.ok(Date.now() - started <= 1_000, 'it gives up before waiting past the deadline');
});

test('a step that hangs is reported by the watchdog at the deadline', async () => {
  let reported: StepTimedOut | undefined;
  const startUp = new StartUp({ logger, timeoutMs: 200, onTimeout: (e) => (reported = e) });
  void startUp.step('Postgres connection', () => new Promise(() => undefined));
  await new Promise((r) => setTimeout(r, 400));
  assert.match(reported?.message ?? '', /^step "Postgres connection" did not succeed within 0 s/);
});

test('what waiting cannot fix', () => {
  assert.ok(isPermanent(new ConfigError('NATS_URL', 'points at a NATS server that cannot carry ...')));
  assert.ok(isPermanent(Object.assign(new Error('x'), { code: 'AUTHORIZATION_VIOLATION' })));
  assert.ok(isPermanent(new Error('migration payments/0001.sql failed: syntax error', {
    cause: Object.assign(new Error('syntax error'), { code: '42601' }),
  })));
  assert.ok(!isPermanent(Object.assign(new Error('x'), { code: 'CONNECTION_REFUSED' })));
  assert.ok(!isPermanent(Object.assign(new Error('x'), { code: 'TIMEOUT' })));
  assert.ok(!isPermanent(Object.assign(new Error('starting up'), { code: '57P03' })));
  assert.ok(!isPermanent(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })])));
  assert.ok(!isPermanent(new Error('stream not found')), 'a broker still recovering its streams');
});

test('backoff doubles from 250 ms to at most 10 s, with jitter in the upper half', () => {
  assert.equal(backoffMs(1, () => 0), 125);
  assert.equal(backoffMs(1, () => 1), 250);
  assert.equal(backoffMs(3, () => 0), 500);
  assert.equal(backoffMs(20, () => 1), 10_000);
  assert.equal(backoffMs(20, () => 0), 5_000);
});

test('a failure is described by its class and code, never its fields', () => {
  const err = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', password: 'x' });
  assert.deepEqual(describeError(err), { errorClass: 'Error ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5432' });
});
