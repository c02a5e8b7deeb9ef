// SSRF through a credential field: the address policy guarded api_base_url, but
// Adyen's live_url_prefix was stored as written and the Adyen library builds
// https://{prefix}-checkout-live.adyenpayments.com/… from it, which then went out through a plain
// fetch. A stranger who signed up, switched to live and connected Adyen with a prefix such as
// `127.0.0.1:PORT/x?` made the payments part connect to loopback ports on `test` (and could time
// the answers: a port scanner). Through the real gateway, as that stranger: such a prefix is a 422
// naming the field, and an account stored before the check reaches nothing, open and closed ports
// answering alike.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createCredentialStore } from '../services/payments/provider-credentials/index.js';
import { createPool } from '../services/platform/db.js';
import { DashboardBrowser, registerByMail } from './helpers/dashboard-browser.js';
import { freePort } from './helpers/processes.js';
import { startTestStack, type TestStack } from './helpers/stack.js';

const PASSWORD = 'correct horse battery';
const PROVIDER_KEY = randomBytes(32).toString('hex');
const adyenCredentials = (live_url_prefix: string) => ({
  api_key: `AQE_${randomBytes(8).toString('hex')}`, merchant_account: 'ShopECOM', hmac_key: '44782DEF547AAA06C910C43932B1EB0C', live_url_prefix,
});

/** A loopback port, on 127.0.0.1 and ::1 alike, that counts every connection made to it (none may be). */
interface Listener {
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}

async function listener(): Promise<Listener> {
  let count = 0;
  const servers: Server[] = [];
  const listen = (host: string, port: number) => new Promise<number>((resolve, reject) => {
    const server = createServer((socket) => { count += 1; socket.destroy(); });
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
    servers.push(server);
  });
  const port = await listen('127.0.0.1', 0);
  await listen('::1', port);
  return {
    port,
    connections: () => count,
    close: async () => { await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))); },
  };
}

const attacks = (port: number) => [`127.0.0.1:${port}/x?`, `localhost:${port}/#`, `[::1]:${port}/x?`];

let stack: TestStack;
let inside: Listener;
let stranger: DashboardBrowser;
let session: { merchant: { id: string }; project: { id: string } };

before(async () => {
  inside = await listener();
  // The stand-ins' loopback origin stays listed (as in every other test): it must not open a way in.
  stack = await startTestStack({ env: { PROVIDER_SECRET_KEY: PROVIDER_KEY } });
  stranger = new DashboardBrowser(stack.baseUrl);
  const email = `stranger-${randomBytes(4).toString('hex')}@example.com`;
  const registered = await registerByMail(stranger, stack.mailbox, { email, password: PASSWORD, merchant_name: 'Port scanner' });
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  session = (await stranger.call('GET', '/session')).body;
  assert.equal((await stranger.call('POST', '/mode', { mode: 'live' })).status, 200);
});
after(async () => {
  await stack?.close();
  await inside?.close();
});

const connect = (credentials: Record<string, string>) =>
  stranger.call('POST', '/provider-accounts', { provider: 'adyen', name: `Adyen ${randomBytes(3).toString('hex')}`, credentials });

describe('credential fields that become part of a host (Adyen live_url_prefix)', () => {
  test('a live_url_prefix that is not Adyen\'s shape is a 422 naming the field; nothing stored, nothing sent', async () => {
    for (const prefix of attacks(inside.port)) {
      const res = await connect(adyenCredentials(prefix));
      assert.equal(res.status, 422, `${prefix}: ${JSON.stringify(res.body)}`);
      assert.deepEqual([res.body.error.code, res.body.error.param], ['validation_error', 'live_url_prefix'], prefix);
      assert.doesNotMatch(res.body.error.message, new RegExp(String(inside.port)), 'the value is not quoted');
    }
    const listed = await stranger.call('GET', '/provider-accounts');
    assert.equal(listed.body.data.length, 0);
    assert.equal(inside.connections(), 0);
  });

  test('a prefix stored before the check: `test` reaches no loopback port, and open and closed ports answer alike', async () => {
    const closed = await freePort();
    const pool = createPool(stack.db.url, 'payments', 1);
    const answers: Array<{ prefix: string; answer: unknown }> = [];
    try {
      for (const prefix of [...attacks(inside.port), ...attacks(closed)]) {
        const connected = await connect(adyenCredentials('1797a841fbb37ca7-ShopECOM'));
        assert.equal(connected.status, 201, JSON.stringify(connected.body));
        // Rewritten as the old code let it be stored.
        await createCredentialStore(pool, Buffer.from(PROVIDER_KEY, 'hex')).put({
          providerAccountId: connected.body.id, merchantId: session.merchant.id, projectId: session.project.id, mode: 'live',
          providerCode: 'adyen', values: adyenCredentials(prefix),
        }, new Date());
        const checked = await stranger.call('POST', `/provider-accounts/${connected.body.id}/test`);
        assert.equal(checked.status, 200, JSON.stringify(checked.body));
        const { ok, reason, message, provider_error_code } = checked.body;
        answers.push({ prefix, answer: { ok, reason, message, provider_error_code } });
        assert.equal(ok, false, prefix);
        assert.doesNotMatch(JSON.stringify(checked.body), /ECONNREFUSED|ECONNRESET|EPROTO|ssl|certificate|127\.0\.0\.1|::1|localhost/i, prefix);
      }
    } finally {
      await pool.end();
    }
    assert.equal(inside.connections(), 0, 'no connection reached the loopback listener');
    assert.equal(new Set(answers.map((a) => JSON.stringify(a.answer))).size, 1, `one answer for all: ${JSON.stringify(answers)}`);
    assert.match((answers[0].answer as { message: string }).message, /could not be reached/);
  });
});
