// A self-registered, unverified merchant connected a Stripe or Adyen account
// whose api_base_url was an internal address (http://127.0.0.1:PORT/any/path?), and `test` made the
// payments part send an authenticated request there and handed back the internal body and whether
// the port was open. Through the real gateway and dashboard: such a base URL is refused before
// anything is stored, in test and live mode; a redirect from an operator-listed host is not
// followed; an account stored before the policy reaches nothing, and an open and a closed port
// answer alike, with none of the internal body. DNS rebinding is tried on the connector itself,
// where the name's resolution can be chosen. Mollie's SDK, whose transport the connector replaces,
// is held to the same rules.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createMollieConnector } from '../services/connectors/mollie/connector.js';
import { createStripeConnector } from '../services/connectors/stripe/connector.js';
import { createCredentialStore } from '../services/payments/provider-credentials/index.js';
import { createPool } from '../services/platform/db.js';
import type { Resolver } from '../services/platform/net/index.js';
import { DashboardBrowser, registerByMail } from './helpers/dashboard-browser.js';
import { freePort } from './helpers/processes.js';
import { startTestStack, type TestStack } from './helpers/stack.js';
import { serveLoopback, type LoopbackServer } from './helpers/stand-in-server.js';

const PASSWORD = 'correct horse battery';
const PROVIDER_KEY = randomBytes(32).toString('hex');
const SECRET = 'INTERNAL-ONLY: db password hunter2';
const stripeCredentials = (api_base_url: string, mode = 'test') => ({
  secret_key: `sk_${mode}_${randomBytes(8).toString('hex')}`, webhook_secret: 'whsec_x', api_base_url,
});
const mollieCredentials = (api_base_url: string, mode = 'test') => ({
  api_key: `${mode}_${randomBytes(15).toString('hex')}`, webhook_base_url: 'https://pay.example.com', api_base_url,
});

/** An internal HTTP service that must never be reached: it records every request and connection. */
interface Internal extends LoopbackServer {
  requests: string[];
  connections: () => number;
}

async function internalService(): Promise<Internal> {
  const requests: string[] = [];
  const server = await serveLoopback((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: SECRET } }));
  });
  let connections = 0;
  server.server.on('connection', () => { connections += 1; });
  return Object.assign(server, { requests, connections: () => connections });
}

let stack: TestStack;
let internal: Internal;
let listed: LoopbackServer & { requests: string[] };
let merchant: DashboardBrowser;
let session: { merchant: { id: string }; project: { id: string } };

before(async () => {
  internal = await internalService();
  // A host the operator vouches for, which answers every request with a redirect inward.
  const listedRequests: string[] = [];
  listed = Object.assign(await serveLoopback((req, res) => {
    listedRequests.push(`${req.method} ${req.url}`);
    res.writeHead(302, { location: `${internal.baseUrl}/admin/secrets` }).end();
  }), { requests: listedRequests });
  // Only the redirecting host is listed: the stand-ins' loopback opt-in of other tests is not given.
  stack = await startTestStack({ env: { PROVIDER_SECRET_KEY: PROVIDER_KEY, PROVIDER_BASE_URL_ALLOWLIST: listed.baseUrl } });
  merchant = new DashboardBrowser(stack.baseUrl);
  const email = `attacker-${randomBytes(4).toString('hex')}@example.com`;
  const registered = await registerByMail(merchant, stack.mailbox, { email, password: PASSWORD, merchant_name: 'Prober' });
  assert.equal(registered.status, 201, JSON.stringify(registered.body));
  session = (await merchant.call('GET', '/session')).body;
});
after(async () => {
  await stack?.close();
  await internal?.close();
  await listed?.close();
});

async function connect(credentials: Record<string, string>, provider = 'stripe') {
  return merchant.call('POST', '/provider-accounts', { provider, name: `Attack ${randomBytes(3).toString('hex')}`, credentials });
}

function assertRefused(res: { status: number; headers: Headers; body: any }, what: string) {
  assert.equal(res.status, 422, `${what}: ${JSON.stringify(res.body)}`);
  assert.deepEqual(
    [res.body.error.type, res.body.error.code, res.body.error.param],
    ['invalid_request_error', 'validation_error', 'api_base_url'], what,
  );
  assert.ok(res.headers.get('x-request-id'), what);
}

async function accountCount(): Promise<number> {
  const list = await merchant.call('GET', '/provider-accounts');
  assert.equal(list.status, 200);
  return list.body.data.length;
}

describe('provider base URLs', () => {
  test('test mode: an internal address with a path of the merchant\'s choosing is a 422 on api_base_url; nothing stored or sent', async () => {
    const attack = `${internal.baseUrl}/any/path?`;
    assertRefused(await connect(stripeCredentials(attack)), 'stripe');
    assertRefused(await connect({ api_key: 'AQE_x', merchant_account: 'Shop', hmac_key: '44782DEF', api_base_url: attack }, 'adyen'), 'adyen');
    assertRefused(await connect(mollieCredentials(attack), 'mollie'), 'mollie');
    assertRefused(await connect(stripeCredentials(`https://localhost:${new URL(internal.baseUrl).port}/`)), 'localhost over https');
    assert.equal(await accountCount(), 0);
    const stored = await stack.query('SELECT count(*)::int AS n FROM payments.provider_credentials');
    assert.equal(stored.rows[0].n, 0);
    assert.deepEqual([internal.requests, internal.connections()], [[], 0]);
  });

  test('live mode over plain http is refused, to a public host as to an internal one', async () => {
    assert.equal((await merchant.call('POST', '/mode', { mode: 'live' })).status, 200);
    try {
      assertRefused(await connect(stripeCredentials('http://sandbox.example.com', 'live')), 'public http');
      assertRefused(await connect(stripeCredentials(internal.baseUrl, 'live')), 'loopback http');
      assertRefused(await connect(mollieCredentials(internal.baseUrl, 'live'), 'mollie'), 'mollie loopback http');
      assertRefused(await connect(mollieCredentials('https://10.0.0.5', 'live'), 'mollie'), 'mollie private https');
      assert.equal(await accountCount(), 0);
    } finally {
      assert.equal((await merchant.call('POST', '/mode', { mode: 'test' })).status, 200);
    }
    assert.deepEqual([internal.requests, internal.connections()], [[], 0]);
  });

  test('private, link-local and cloud metadata addresses are refused in test mode too', async () => {
    for (const url of [
      'https://10.0.0.5/v1', 'https://192.168.1.20/', 'https://[fd12::1]/', 'https://169.254.169.254/latest/meta-data/',
      'https://metadata.google.internal/computeMetadata/v1/', 'https://[fd00:ec2::254]/', 'https://169.254.10.10/',
      'https://2130706433/', 'https://[::ffff:127.0.0.1]/', 'https://db.internal/', 'https://user:pw@sandbox.example.com/',
    ]) {
      assertRefused(await connect(stripeCredentials(url)), url);
    }
    assert.equal(await accountCount(), 0);
  });

  test('an operator-listed host that redirects inward: `test` does not follow it', async () => {
    const connected = await connect(stripeCredentials(`${listed.baseUrl}/`));
    assert.equal(connected.status, 201, JSON.stringify(connected.body));
    const checked = await merchant.call('POST', `/provider-accounts/${connected.body.id}/test`);
    assert.equal(checked.status, 200, JSON.stringify(checked.body));
    assert.equal(checked.body.ok, false);
    assert.ok(listed.requests.some((r) => r.startsWith('GET /v1/balance')), 'the listed host was asked');
    assert.deepEqual([internal.requests, internal.connections()], [[], 0]);
    assert.doesNotMatch(JSON.stringify(checked.body), /INTERNAL-ONLY|hunter2/);
  });

  test('accounts stored before the policy: open and closed ports answer alike, no body comes back, nothing is sent', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const pool = createPool(stack.db.url, 'payments', 1);
    const answers: unknown[] = [];
    try {
      for (const [provider, base] of [
        ['stripe', internal.baseUrl], ['stripe', closed], ['adyen', internal.baseUrl], ['adyen', closed],
        ['mollie', internal.baseUrl], ['mollie', closed],
      ]) {
        // Connected with an address the policy takes, then rewritten as the old code let it be stored.
        const credentials = provider === 'stripe'
          ? stripeCredentials('https://sandbox.example.com')
          : provider === 'mollie'
            ? mollieCredentials('https://sandbox.example.com')
            : { api_key: 'AQE_x', merchant_account: 'Shop', hmac_key: '44782DEF', api_base_url: 'https://sandbox.example.com' };
        const connected = await connect(credentials, provider);
        assert.equal(connected.status, 201, JSON.stringify(connected.body));
        await createCredentialStore(pool, Buffer.from(PROVIDER_KEY, 'hex')).put({
          providerAccountId: connected.body.id, merchantId: session.merchant.id, projectId: session.project.id, mode: 'test',
          providerCode: provider, values: { ...credentials, api_base_url: `${base}/any/path?` },
        }, new Date());
        const checked = await merchant.call('POST', `/provider-accounts/${connected.body.id}/test`);
        assert.equal(checked.status, 200, JSON.stringify(checked.body));
        const { ok, reason, message, provider_error_code } = checked.body;
        answers.push({ provider, ok, reason, message, provider_error_code });
        assert.doesNotMatch(JSON.stringify(checked.body), /INTERNAL-ONLY|hunter2|ECONNREFUSED|403/);
      }
    } finally {
      await pool.end();
    }
    assert.deepEqual(answers[0], answers[1], 'stripe: open and closed ports look alike');
    assert.deepEqual(answers[2], answers[3], 'adyen: open and closed ports look alike');
    assert.deepEqual(answers[4], answers[5], 'mollie: open and closed ports look alike');
    // Stripe's SDK says no more than that its connection failed; Adyen's transport passes on ours.
    assert.match((answers[0] as { message: string }).message, /error occurred with our connection to Stripe/);
    assert.match((answers[2] as { message: string }).message, /could not be reached/);
    // Mollie's SDK sends through the account's provider fetch (mollie/client.ts), whose words it passes on.
    assert.match((answers[4] as { message: string }).message, /could not be reached/);
    assert.deepEqual([internal.requests, internal.connections()], [[], 0]);
  });

  test('DNS rebinding: a name that resolves inside at connect time is refused before a connection is made', async () => {
    const port = new URL(internal.baseUrl).port;
    const seen = [internal.requests.length, internal.connections()];
    const rebound: Resolver = (_host, _options, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]);
    const connector = createStripeConnector({
      credentials: {
        get: async () => ({ mode: 'test', values: stripeCredentials(`https://provider.example.com:${port}/`) }),
      },
      network: { allowlist: [], resolve: rebound },
    });
    const checked = await connector.checkCredentials!({ providerCode: 'stripe', id: 'pac_rebind' });
    assert.equal(checked.ok, false);
    assert.doesNotMatch(JSON.stringify(checked), /INTERNAL-ONLY|127\.0\.0\.1/);
    assert.deepEqual([internal.requests.length, internal.connections()], seen);
  });

  test('DNS rebinding reaches nothing through Mollie\'s SDK either', async () => {
    const port = new URL(internal.baseUrl).port;
    const seen = [internal.requests.length, internal.connections()];
    const rebound: Resolver = (_host, _options, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]);
    const connector = createMollieConnector({
      credentials: { get: async () => ({ mode: 'test', values: mollieCredentials(`https://provider.example.com:${port}`) }) },
      network: { allowlist: [], resolve: rebound },
    });
    const checked = await connector.checkCredentials!({ providerCode: 'mollie', id: 'pac_rebind' });
    assert.equal(checked.ok, false);
    assert.doesNotMatch(JSON.stringify(checked), /INTERNAL-ONLY|127\.0\.0\.1/);
    assert.deepEqual([internal.requests.length, internal.connections()], seen);
  });
});
