// Provider accounts: connected with svc and the management API, credentials sealed in
// payments and never shown, routed like demo accounts per mode, disabled and enabled, and tested
// through the connector's checkCredentials. A fake connector stands in for Stripe.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { AuthorizeRequest, Connector } from '../services/payments/index.js';
import { createCredentialStore } from '../services/payments/provider-credentials/index.js';
import { createPool } from '../services/platform/db.js';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { startTestStack, type TestStack } from './helpers/stack.js';
import { runSvc } from './helpers/svc-cli.js';

const SECRET_KEY = `sk_live_${randomBytes(16).toString('hex')}`;
const WEBHOOK_SECRET = `whsec_${randomBytes(16).toString('hex')}`;

/** Approves every payment it gets; its credential check refuses the accounts the test names. */
function fakeStripe() {
  const authorized: AuthorizeRequest[] = [];
  const refused = new Set<string>();
  const connector: Connector = {
    async authorize(req) {
      authorized.push(req);
      return { outcome: 'success', providerPaymentId: `pi_${req.attemptId}`, providerCode: null, providerMessage: null, fee: 0n };
    },
    async getStatus() {
      return { found: false };
    },
    async refund() {
      return { outcome: 'success', providerRefundId: 're_1', providerCode: null, providerMessage: null };
    },
    async checkCredentials(account) {
      return refused.has(account.id)
        ? { ok: false, providerCode: 'api_key_invalid', message: 'Invalid API Key provided' }
        : { ok: true };
    },
  };
  return { connector, authorized, refused };
}

describe('provider accounts', () => {
  const key = randomBytes(32);
  const stripe = fakeStripe();
  let stack: LicensedProviderStack;

  before(async () => {
    // The Adyen stand-in has no checkCredentials: `test` must say so.
    const { checkCredentials: _none, ...adyen } = stripe.connector;
    stack = await startLicensedProviderStack({
      connectors: { stripe: stripe.connector, adyen }, env: { PROVIDER_SECRET_KEY: key.toString('hex') },
      // A live one-off token whose shape names no provider says who issued it.
      paymentDefaults: { payment_method: { type: 'card', token: 'tok_visa', provider_code: 'stripe' } },
    });
  });
  after(async () => {
    await stack?.close();
  });

  const svc = (args: string[], env: Record<string, string> = {}) =>
    runSvc(args, { SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken, ...env });
  const connect = (projectId: string, body: Record<string, unknown>) =>
    stack.manage('POST', `/projects/${projectId}/provider-accounts`, {
      provider: 'stripe', credentials: { secret_key: SECRET_KEY, webhook_secret: WEBHOOK_SECRET }, ...body,
    });

  test('svc provider connect takes its secrets from the environment; list and show never print them; the row is ciphertext', async () => {
    const m = await stack.newMerchantKey('live');
    const connected = await svc([
      'provider', 'connect', '--project', m.projectId, '--mode', 'live', '--provider', 'stripe', '--name', 'Stripe EU',
      '--methods', 'card', '--currencies', 'eur,USD', '--fee-percent', '1.4', '--fee-fixed', '25', '--json',
    ], { STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
    assert.equal(connected.code, 0, connected.stderr);
    const account = JSON.parse(connected.stdout);
    assert.match(account.id, /^pac_/);
    assert.deepEqual(
      [account.mode, account.status, account.provider.code, account.name, account.fee_fixed, account.fee_bps],
      ['live', 'active', 'stripe', 'Stripe EU', 25, 140],
    );
    assert.deepEqual([account.payment_method_types, account.currencies], [['card'], ['EUR', 'USD']]);
    assert.deepEqual(account.credentials.fields, ['secret_key', 'webhook_secret']);

    const outputs = [
      connected.stdout, connected.stderr,
      (await svc(['provider', 'list', '--project', m.projectId])).stdout,
      (await svc(['provider', 'list', '--project', m.projectId, '--mode', 'live', '--json'])).stdout,
      (await svc(['provider', 'show', account.id])).stdout,
      (await svc(['provider', 'show', account.id, '--json'])).stdout,
      JSON.stringify((await stack.manage('GET', `/provider-accounts/${account.id}`)).body),
    ];
    assert.match(outputs[2], new RegExp(`${account.id}\\s+live\\s+active\\s+stripe\\s+"Stripe EU"`));
    assert.match(outputs[4], /credentials: secret_key, webhook_secret \(stored encrypted/);
    for (const out of outputs) {
      assert.ok(!out.includes(SECRET_KEY) && !out.includes(WEBHOOK_SECRET), `a secret was printed: ${out}`);
    }

    // At rest: sealed in payments, nowhere in clear in any part's tables, the audit log included.
    const { rows } = await stack.query('SELECT * FROM payments.provider_credentials WHERE provider_account_id = $1', [account.id]);
    assert.match(rows[0].sealed, /^aes256gcm:/);
    const dump = await stack.query(
      `SELECT (SELECT json_agg(c)::text FROM payments.provider_credentials c) AS credentials,
              (SELECT json_agg(a)::text FROM routing_risk.provider_accounts a) AS accounts,
              (SELECT json_agg(l)::text FROM gateway.audit_log l) AS audit`,
    );
    for (const text of Object.values(dump.rows[0]) as string[]) {
      assert.ok(!text.includes(SECRET_KEY) && !text.includes(WEBHOOK_SECRET));
    }
    // What a connector reads through the credential source is what was connected.
    const pool = createPool(stack.db.url, 'payments', 1);
    try {
      assert.deepEqual(await createCredentialStore(pool, key).source().get(account.id), {
        mode: 'live', values: { secret_key: SECRET_KEY, webhook_secret: WEBHOOK_SECRET },
      });
      await assert.rejects(createCredentialStore(pool, randomBytes(32)).source().get(account.id), 'another key cannot open it');
    } finally {
      await pool.end();
    }
  });

  test('connect refuses what cannot work with 422s naming the field, and leaves no credentials behind', async () => {
    const m = await stack.newMerchantKey('live');
    const unknown = await connect(m.projectId, { mode: 'live', provider: 'worldpay', name: 'Worldpay' });
    assert.deepEqual([unknown.status, unknown.body.error.param], [422, 'provider']);
    assert.match(unknown.body.error.message, /worldpay.*adyen, basis_theory, checkout, mollie, paypal, stripe/);

    const adyen = await stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      mode: 'live', provider: 'adyen', name: 'Adyen', credentials: { api_key: 'AQE_key' },
    });
    assert.equal(adyen.status, 422);
    assert.match(adyen.body.error.message, /merchant_account, hmac_key/);

    const testKeyOnLive = await connect(m.projectId, {
      mode: 'live', name: 'Wrong key', credentials: { secret_key: 'sk_test_123', webhook_secret: WEBHOOK_SECRET },
    });
    assert.deepEqual([testKeyOnLive.status, testKeyOnLive.body.error.param], [422, 'secret_key']);

    // Refused by routing-risk after payments stored the credentials: they are removed again.
    const qr = await connect(m.projectId, { mode: 'live', name: 'QR', payment_method_types: ['qr'] });
    assert.deepEqual([qr.status, qr.body.error.param], [422, 'payment_method_types']);
    const fees = await connect(m.projectId, { mode: 'live', name: 'Fees', fee_bps: 1.5 });
    assert.deepEqual([fees.status, fees.body.error.param], [422, 'fee_bps']);
    const first = await connect(m.projectId, { mode: 'live', name: 'Stripe EU' });
    assert.equal(first.status, 201);
    const again = await connect(m.projectId, { mode: 'live', name: 'Stripe EU' });
    assert.equal(again.status, 422);
    assert.match(again.body.error.message, new RegExp(first.body.id));
    const stored = await stack.query('SELECT provider_account_id FROM payments.provider_credentials WHERE project_id = $1', [m.projectId]);
    assert.deepEqual(stored.rows.map((r) => r.provider_account_id), [first.body.id]);

    assert.equal((await connect('prj_missing', { mode: 'live', name: 'X' })).status, 404);
    assert.equal((await stack.manage('GET', '/provider-accounts/pac_missing')).status, 404);
    // The CLI checks what it can before calling: a missing secret names the flag and its variable.
    const cli = await svc(['provider', 'connect', '--project', m.projectId, '--mode', 'live', '--provider', 'stripe',
      '--name', 'N', '--webhook-secret', 'whsec_x']);
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /--secret-key \(or STRIPE_SECRET_KEY\)/);
  });

  test('a live payment reaches the enabled account; disabled, it fails no_eligible_provider; enabled again, it is routed', async () => {
    const m = await stack.newMerchantKey('live');
    const { body: account } = await connect(m.projectId, { mode: 'live', name: 'Stripe', fee_fixed: 25, fee_bps: 140 });

    const paid = await stack.pay(m.secret);
    assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
    assert.equal(paid.body.route.provider_account_id, account.id);
    assert.equal(paid.body.route.provider.code, 'stripe');
    assert.equal(stripe.authorized.find((r) => r.paymentId === paid.body.id)?.account.feeBps, 140);

    const disabled = await svc(['provider', 'disable', account.id, '--json']);
    assert.equal(JSON.parse(disabled.stdout).status, 'disabled');
    const refused = await stack.pay(m.secret);
    assert.equal(refused.body.failure.code, 'no_eligible_provider');

    assert.equal((await stack.manage('POST', `/provider-accounts/${account.id}/enable`)).body.status, 'active');
    assert.equal((await stack.pay(m.secret)).body.status, 'successful');
  });

  test('svc provider test reports the connector\'s answer, and says so when the connector cannot check', async () => {
    const m = await stack.newMerchantKey('live');
    const good = (await connect(m.projectId, { mode: 'live', name: 'Good' })).body;
    const bad = (await connect(m.projectId, { mode: 'live', name: 'Bad' })).body;
    stripe.refused.add(bad.id);

    const ok = await svc(['provider', 'test', good.id]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /credentials accepted/);
    const no = await svc(['provider', 'test', bad.id]);
    assert.equal(no.code, 1);
    assert.match(no.stderr, /refused \(api_key_invalid\): Invalid API Key provided/);
    const api = await stack.manage('POST', `/provider-accounts/${bad.id}/test`);
    assert.deepEqual(
      [api.status, api.body.ok, api.body.reason, api.body.provider_error_code],
      [200, false, 'refused', 'api_key_invalid'],
    );

    // This stack's Adyen connector cannot check credentials (an uninstalled one: check.test.ts).
    const adyen = await stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      mode: 'live', provider: 'adyen', name: 'Adyen',
      credentials: { api_key: 'AQE_key', merchant_account: 'AcmeECOM', hmac_key: '44782DEF547AAA06C910C43932B1EB0C', live_url_prefix: '1797a841fbb37ca7-AcmeECOM' },
    });
    assert.equal(adyen.status, 201, JSON.stringify(adyen.body));
    const unchecked = await stack.manage('POST', `/provider-accounts/${adyen.body.id}/test`);
    assert.deepEqual([unchecked.body.ok, unchecked.body.reason], [false, 'not_supported']);
    assert.match(unchecked.body.message, /adyen connector cannot check credentials/);
  });

  test('a live key reaches only live accounts; a test key the demo providers and the project\'s test accounts, these first', async () => {
    const live = await stack.newMerchantKey('live');
    const test = await stack.manage('POST', `/projects/${live.projectId}/keys`, { mode: 'test', name: 'test key' });
    const sandbox = await connect(live.projectId, {
      mode: 'test', name: 'Stripe sandbox',
      credentials: { secret_key: 'sk_test_123', webhook_secret: WEBHOOK_SECRET },
    });
    assert.equal(sandbox.status, 201, JSON.stringify(sandbox.body));

    // Only a test account: the live key has nothing to route to.
    assert.equal((await stack.pay(live.secret)).body.failure.code, 'no_eligible_provider');
    const viaTest = await stack.pay(test.body.secret);
    assert.equal(viaTest.body.status, 'successful');
    assert.equal(viaTest.body.route.provider_account_id, sandbox.body.id);

    // A live account is not reached by the test key, which still has the demo providers behind its sandbox.
    const liveAccount = (await connect(live.projectId, { mode: 'live', name: 'Stripe live' })).body;
    assert.equal((await stack.pay(live.secret)).body.route.provider_account_id, liveAccount.id);
    await stack.manage('POST', `/provider-accounts/${sandbox.body.id}/disable`);
    const demo = await stack.pay(test.body.secret);
    assert.equal(demo.body.status, 'successful');
    assert.match(demo.body.route.provider.code, /^demo_/);

    // Listing by mode.
    const listed = await stack.manage('GET', `/projects/${live.projectId}/provider-accounts?mode=test`);
    assert.deepEqual(listed.body.data.map((a: any) => a.id), [sandbox.body.id]);
  });
});

describe('provider accounts without PROVIDER_SECRET_KEY', () => {
  let stack: TestStack;
  before(async () => {
    stack = await startTestStack();
  });
  after(async () => {
    await stack?.close();
  });

  test('connecting is refused, naming the variable; nothing is stored', async () => {
    const m = await stack.newMerchantKey('live');
    const res = await stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      mode: 'live', provider: 'stripe', name: 'Stripe',
      credentials: { secret_key: SECRET_KEY, webhook_secret: WEBHOOK_SECRET },
    });
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, 'not_configured');
    assert.match(res.body.error.message, /PROVIDER_SECRET_KEY/);
    const listed = await stack.manage('GET', `/projects/${m.projectId}/provider-accounts`);
    assert.deepEqual(listed.body.data, []);
  });
});
