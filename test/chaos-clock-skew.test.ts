import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Health, HealthCheckResponse_ServingStatus } from '../proto/gen/grpc/health/v1/health_pb.js';
import { DEMO_PROVIDERS } from '../services/contract/enums.js';
import { PAYOUT_DESTINATION, SETTLING_ENV, chaosTag, paySettled } from './helpers/chaos.js';
import { eventually } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { request } from './helpers/stack.js';
import { startSplitStack, type SplitStack } from './helpers/split-stack.js';

// Chaos: replicas whose clocks are 90 s off (libfaketime) next to replicas whose clocks are right,
// sharing one database. Every lease, hold and reconciliation age is judged by the database's clock
// (services/platform/database-clock.ts): no payout is sent twice, no payout leaves before its
// cancellable hold has passed, no payment attempt still in flight is reconciled. A replica that far
// off under the default bound (CLOCK_SKEW_MAX_MS, 2 s) is not ready and claims nothing.

const FAKETIME_LIB = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

function faketimeMissing(): string | false {
  if (existsSync(FAKETIME_LIB)) return false;
  if (process.env.CI) throw new Error(`${FAKETIME_LIB} must be installed in CI (.ci/run installs libfaketime)`);
  return `${FAKETIME_LIB} is not installed (apt-get install libfaketime)`;
}

const skip = faketimeMissing();
const nats = skip ? { skip } : await jetStreamForFile();

/** A replica whose process clock runs `offset` ('+90s', '-90s') from the machine's. */
const skewed = (offset: string, bound = '600000') => ({ LD_PRELOAD: FAKETIME_LIB, FAKETIME: offset, CLOCK_SKEW_MAX_MS: bound });

const HOLD_MS = 3_000;
const PAYOUTS = 8;
const PAYMENTS = 8;
const sendLog = join(tmpdir(), `${chaosTag('clock')}-sends.jsonl`);

describe('replicas 90 s ahead and behind the database', { skip: nats.skip }, () => {
  let split: SplitStack;
  let key: string;
  let ahead: { output(): string };

  before(async () => {
    writeFileSync(sendLog, '');
    split = await startSplitStack(nats.url!, {
      ...SETTLING_ENV,
      PAYOUT_TEST_HOLD_MS: String(HOLD_MS),
      PAYOUT_SWEEP_MS: '100',
      // A payout's or an attempt's lease: 3 × 3 s + 5 s = 14 s, far less than the skew.
      PROVIDER_TIMEOUT_MS: '3000',
      RECONCILIATION_SWEEP_MS: '200',
    }, {
      payouts: { DEMO_PAYOUT_LATENCY_MS: '1500', DEMO_PAYOUT_SEND_LOG: sendLog },
    }, { payouts: 'test/helpers/slow-payouts-part.js' });
    await split.addReplica('payouts', 'payouts-ahead', skewed('+90s'));
    await split.addReplica('payouts', 'payouts-behind', skewed('-90s'));
    ahead = await split.addReplica('payments', 'payments-ahead', { ...skewed('+90s'), LOG_LEVEL: 'info' });
    const manage = (method: string, path: string, body?: unknown) =>
      request(split.baseUrl, method, `/manage/v1${path}`, { key: split.operatorToken, body });
    const merchant = await manage('POST', '/merchants', { name: 'Skewed clocks' });
    key = (await manage('POST', `/projects/${merchant.body.project.id}/keys`, { mode: 'test', name: 'test' })).body.secret;
    await paySettled(split.baseUrl, key, [100_000]);
    // From here every demo payment stays at its provider 2 s: in flight, its outcome not yet recorded.
    for (const provider of DEMO_PROVIDERS) {
      const set = await manage('PUT', `/projects/${merchant.body.project.id}/demo-behaviour`, {
        mode: 'test', provider, payment_method: 'card', currency: 'EUR', latency_ms: 2_000,
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
    }
  });
  after(() => split?.close());

  test('no payout is sent twice or before its hold has passed', async () => {
    const created = await Promise.all(Array.from({ length: PAYOUTS }, (_, i) => request(split.baseUrl, 'POST', '/v1/payouts', {
      key, body: { amount: 1_000 + i, currency: 'EUR', destination: PAYOUT_DESTINATION, test_scenario: 'success' },
    })));
    for (const c of created) assert.equal(c.status, 201, JSON.stringify(c.body));
    await eventually('every payout successful', async () => {
      const states = await Promise.all(created.map((c) => request(split.baseUrl, 'GET', `/v1/payouts/${c.body.id}`, { key })));
      return states.every((s) => s.body.status === 'successful') ? true : undefined;
    }, 60_000);
    // Past a whole lease more: a replica judging by its own clock would have taken them again by now.
    await new Promise((r) => setTimeout(r, 16_000));
    const sends = readFileSync(sendLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as {
      payoutId: string; at: number; faketime: string;
    });
    for (const c of created) {
      const mine = sends.filter((s) => s.payoutId === c.body.id);
      assert.equal(mine.length, 1, `payout ${c.body.id} sent ${mine.length} times: ${JSON.stringify(mine)}`);
      // The sender's clock reading, taken back to the machine's.
      const offsetMs = mine[0].faketime ? Number(mine[0].faketime.replace(/s$/, '')) * 1000 : 0;
      const heldMs = mine[0].at - offsetMs - Date.parse(c.body.created_at);
      assert.ok(heldMs >= HOLD_MS - 250, `payout ${c.body.id} sent ${heldMs} ms after creation, inside its ${HOLD_MS} ms hold`);
    }
  });

  test('no payment attempt still in flight is reconciled by the replica ahead', async () => {
    const paid = await Promise.all(Array.from({ length: PAYMENTS }, (_, i) => request(split.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 500 + i, currency: 'EUR', payment_method: 'card' },
    })));
    for (const p of paid) assert.equal(p.body?.status, 'successful', JSON.stringify(p.body));
    await new Promise((r) => setTimeout(r, 2_000));
    assert.doesNotMatch(ahead.output(), /reconciliation: settled/, 'the replica 90 s ahead settled an attempt still in flight');
    assert.match(ahead.output(), /"skew_ms":(8|9)\d{4}/, 'the replica logged its skew');
  });

  test('under the default bound a replica 90 s off is not ready and claims nothing', async () => {
    const refusedLog = join(tmpdir(), `${chaosTag('clock')}-refused.jsonl`);
    writeFileSync(refusedLog, '');
    const refused = await split.addReplica('payouts', 'payouts-refused', {
      ...skewed('+90s', '2000'), DEMO_PAYOUT_SEND_LOG: refusedLog,
    }, { serving: false });
    await eventually('the skew logged', async () => (/beyond the bound/.test(refused.output()) ? true : undefined), 30_000);
    const health = createClient(Health, createGrpcTransport({ baseUrl: refused.url }));
    const answer = await eventually('its health answered', () => health.check({ service: '' }, { timeoutMs: 2_000 }).catch(() => undefined), 30_000)
      .catch((err: Error) => assert.fail(`${err.message}:\n${refused.output()}`));
    assert.equal(answer.status, HealthCheckResponse_ServingStatus.NOT_SERVING);
    const created = await request(split.baseUrl, 'POST', '/v1/payouts', {
      key, body: { amount: 999, currency: 'EUR', destination: PAYOUT_DESTINATION, test_scenario: 'success' },
    });
    await eventually('the payout sent by a ready replica', async () =>
      ((await request(split.baseUrl, 'GET', `/v1/payouts/${created.body.id}`, { key })).body.status === 'successful' ? true : undefined), 30_000);
    assert.equal(readFileSync(refusedLog, 'utf8'), '', 'the replica out of bounds sent nothing');
    assert.match(readFileSync(sendLog, 'utf8'), new RegExp(created.body.id), 'a ready replica sent it');
  });
});
