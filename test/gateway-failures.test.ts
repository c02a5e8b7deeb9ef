import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { PaymentsService } from '../proto/gen/svc/payments/v1/payments_pb.js';
import { build, type GatewayClients } from '../gateway/index.js';
import { systemClock } from '../services/platform/clock.js';
import { loadConfig } from '../services/platform/config.js';
import { createPool, type Pool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { gatewayClients } from './helpers/gateway-clients.js';
import { captureLogs } from './helpers/log-sink.js';
import { freePort } from './helpers/processes.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// Failures behind the gateway: the merchant gets the envelope and nothing of the internals.

let stack: TestStack;
let pool: Pool;
let key: string;

before(async () => {
  stack = await startTestStack();
  key = (await stack.newMerchantKey('test')).secret;
  pool = createPool(stack.db.url, 'gateway', 2);
});
after(async () => {
  await pool?.end();
  await stack?.close();
});

async function gatewayWith(payments: GatewayClients['payments']) {
  const { stream: sink, lines: logs } = captureLogs();
  const app = build({ pool, clients: { ...gatewayClients(), payments }, clock: systemClock, logger: createLogger('test', 'info', sink), config: loadConfig({}) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, logs, baseUrl: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

test('an unreachable payments service is 503 service_unavailable, retryable', async () => {
  const closedPort = await freePort();
  const { app, baseUrl } = await gatewayWith(createClient(PaymentsService, createPeerTransport(`http://127.0.0.1:${closedPort}`, 'unused: nothing listens')));
  try {
    const res = await request(baseUrl, 'POST', '/v1/payments', { key, body: { amount: 10, currency: 'EUR', payment_method: 'card' } });
    assert.equal(res.status, 503);
    assert.equal(res.body.error.type, 'internal_error');
    assert.equal(res.body.error.code, 'service_unavailable');
    assert.doesNotMatch(JSON.stringify(res.body), /127\.0\.0\.1|ECONNREFUSED/);
  } finally {
    await app.close();
  }
});

test('an unexpected failure is 500 internal_error with no stack trace or internal detail', async () => {
  const secretDetail = 'relation payments_secret_table does not exist';
  const broken = {
    createPayment: async () => { throw new TypeError(secretDetail); },
  } as unknown as Parameters<typeof gatewayWith>[0];
  const { app, baseUrl, logs } = await gatewayWith(broken);
  try {
    const res = await request(baseUrl, 'POST', '/v1/payments', { key, body: { amount: 10, currency: 'EUR', payment_method: 'card' } });
    assert.equal(res.status, 500);
    assert.deepEqual(Object.keys(res.body.error).sort(), ['code', 'message', 'type']);
    assert.equal(res.body.error.type, 'internal_error');
    assert.equal(res.body.error.code, 'internal_error');
    assert.doesNotMatch(JSON.stringify(res.body), /payments_secret_table|TypeError|at /);
    assert.match(res.body.request_id, /^req_/);
    assert.ok(logs.join('').includes(secretDetail), `the cause is logged for operators:\n${logs.join('')}`);
  } finally {
    await app.close();
  }
});
