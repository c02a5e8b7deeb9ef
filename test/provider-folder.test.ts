// A provider is one folder plus one line: Acme Pay exists only in test/providers/acme-pay
// and joins the shipped list by the `providers` line below. From its definition alone the stack
// writes its providers row, checks its connect's credential fields, offers its fields to the
// dashboard's connect form, and routes a live payment to its connector, which completes it at the
// stand-in; the scheduled settlement sync asks it for its settlements because its definition says
// it can list them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { ProviderAccountsService } from '../proto/gen/svc/routing/v1/provider_accounts_pb.js';
import { RoutingService } from '../proto/gen/svc/routing/v1/routing_pb.js';
import * as payments from '../services/payments/index.js';
import { PROVIDERS } from '../services/connectors/providers.js';
import { loadConfig } from '../services/platform/config.js';
import { createPool } from '../services/platform/db.js';
import { createLogger } from '../services/platform/logger.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { DashboardBrowser, registerByMail } from './helpers/dashboard-browser.js';
import { eventually } from './helpers/eventually.js';
import { STAND_IN_ORIGINS } from './helpers/stand-in-server.js';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { acmePayProvider } from './providers/acme-pay/index.js';
import { startAcmePayStandIn, type AcmePayStandIn } from './providers/acme-pay/stand-in.js';

const KEY = `ak_live_${Date.now()}`;
const PROVIDER_SECRET_KEY = 'ab'.repeat(32);

describe('a provider added as one folder and one line', () => {
  let stack: LicensedProviderStack;
  let acme: AcmePayStandIn;

  before(async () => {
    acme = await startAcmePayStandIn(KEY);
    stack = await startLicensedProviderStack({
      providers: [...PROVIDERS, acmePayProvider],
      env: { PROVIDER_SECRET_KEY },
      paymentDefaults: { payment_method: { type: 'card', token: 'tok_visa' } },
    });
  });
  after(async () => {
    await stack?.close();
    await acme?.close();
  });

  const connect = (projectId: string, credentials: Record<string, string>, mode = 'live') =>
    stack.manage('POST', `/projects/${projectId}/provider-accounts`, { mode, provider: 'acme_pay', name: 'Acme EU', credentials });

  test('its providers row is written at start from its definition, the shipped rows kept', async () => {
    const { rows } = await stack.query(
      `SELECT id, code, name, kind, methods, currencies FROM routing_risk.providers WHERE kind = 'licensed' ORDER BY code`,
    );
    assert.deepEqual(rows.map((r: any) => [r.id, r.code, r.name, r.kind, r.methods, r.currencies]), [
      ['prv_acme_pay', 'acme_pay', 'Acme Pay', 'licensed', ['card'], ['EUR', 'GBP']],
      ['prv_adyen', 'adyen', 'Adyen', 'licensed', ['card', 'wallet'], []],
      ['prv_basis_theory', 'basis_theory', 'Basis Theory', 'licensed', [], []],
      ['prv_checkout', 'checkout', 'Checkout.com', 'licensed', ['card'], []],
      ['prv_mollie', 'mollie', 'Mollie', 'licensed', ['local', 'open_banking', 'bank_transfer'], ['EUR', 'CHF', 'DKK', 'GBP', 'NOK', 'PLN', 'SEK', 'CZK', 'HUF', 'RON']],
      ['prv_paypal', 'paypal', 'PayPal', 'licensed', ['wallet'], ['AUD', 'BRL', 'CAD', 'CNY', 'CZK', 'DKK', 'EUR', 'HKD', 'HUF', 'ILS', 'JPY', 'MYR', 'MXN', 'TWD', 'NZD', 'NOK', 'PHP', 'PLN', 'GBP', 'SGD', 'SEK', 'CHF', 'THB', 'USD']],
      ['prv_stripe', 'stripe', 'Stripe', 'licensed', ['card', 'wallet'], []],
      // A vault connection's "provider": no method, never a route.
      ['prv_stripe_vault', 'stripe_vault', 'Stripe Vault and Forward', 'licensed', [], []],
    ]);
    // No payouts capability in its definition: no payout capability row.
    const { rows: payouts } = await stack.query(`SELECT provider_id FROM routing_risk.payout_capabilities WHERE provider_id = 'prv_acme_pay'`);
    assert.equal(payouts.length, 0);
  });

  test('the dashboard\'s connect form offers its credential fields, from its definition', async () => {
    const owner = new DashboardBrowser(stack.baseUrl);
    const registered = await registerByMail(owner, stack.mailbox, {
      email: `acme-${Date.now()}@example.com`, password: 'a long enough passphrase 42', merchant_name: 'Acme shop',
    });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const res = await owner.call('GET', '/provider-accounts/providers');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.map((p: { provider: string }) => p.provider), ['acme_pay', 'adyen', 'basis_theory', 'checkout', 'mollie', 'paypal', 'stripe', 'stripe_vault']);
    assert.deepEqual(res.body.data[0], { provider: 'acme_pay', required: ['api_key'], optional: ['api_base_url'] });
  });

  test('a connect is checked against its definition\'s credential fields; nothing is stored when refused', async () => {
    const m = await stack.newMerchantKey('live');
    const missing = await connect(m.projectId, { api_base_url: acme.baseUrl });
    assert.equal(missing.status, 422, JSON.stringify(missing.body));
    assert.equal(missing.body.error.type, 'invalid_request_error');
    assert.equal(missing.body.error.code, 'validation_error');
    assert.equal(missing.body.error.param, 'api_key');
    const unknown = await connect(m.projectId, { api_key: KEY, secret_key: 'sk_live_x' });
    assert.equal(unknown.status, 422);
    assert.equal(unknown.body.error.param, 'secret_key');
    const testKeyOnLive = await connect(m.projectId, { api_key: 'ak_test_1', api_base_url: acme.baseUrl });
    assert.equal(testKeyOnLive.status, 422);
    assert.equal(testKeyOnLive.body.error.param, 'api_key');
    assert.match(testKeyOnLive.body.error.message, /Acme Pay test key but the account is live/);
    assert.doesNotMatch(JSON.stringify([missing.body, unknown.body, testKeyOnLive.body]), new RegExp(KEY));
    const listed = await stack.manage('GET', `/projects/${m.projectId}/provider-accounts`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data, []);
  });

  test('connected through the normal path, its credentials check at the stand-in and a live payment completes there', async () => {
    const m = await stack.newMerchantKey('live');
    const connected = await connect(m.projectId, { api_key: KEY, api_base_url: acme.baseUrl });
    assert.equal(connected.status, 201, JSON.stringify(connected.body));
    assert.equal(connected.body.provider.code, 'acme_pay');
    assert.deepEqual(connected.body.credentials.fields, ['api_base_url', 'api_key']);
    assert.doesNotMatch(JSON.stringify(connected.body), new RegExp(KEY));

    const checked = await stack.manage('POST', `/provider-accounts/${connected.body.id}/test`);
    assert.equal(checked.status, 200, JSON.stringify(checked.body));
    assert.equal(checked.body.ok, true);

    const paid = await stack.pay(m.secret);
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.equal(paid.body.status, 'successful');
    assert.equal(paid.body.route.provider.code, 'acme_pay');
    const attempt = paid.body.attempts[0];
    const charge = acme.requests.find((r) => r.path === '/charges' && r.body.reference === attempt.id);
    assert.ok(charge, 'the charge reached the stand-in under the attempt id');
    assert.deepEqual([charge.authorization, charge.body.amount, charge.body.currency], [`Bearer ${KEY}`, 2500, 'EUR']);
    assert.equal(attempt.provider_payment_id, 'ch_1');

    const declined = await stack.pay(m.secret, { payment_method: { type: 'card', token: 'tok_decline' } });
    assert.equal(declined.body.status, 'failed', JSON.stringify(declined.body));
    assert.equal(declined.body.attempts[0].outcome, 'hard_decline');
    assert.equal(declined.body.attempts[0].provider_code, 'do_not_honor');
  });

  test('the scheduled settlement sync lists the settlements of its accounts, its definition having settlementSync', async () => {
    const m = await stack.newMerchantKey('live');
    const connected = await connect(m.projectId, { api_key: KEY, api_base_url: acme.baseUrl });
    assert.equal(connected.status, 201, JSON.stringify(connected.body));
    // One more payments on the stack's database with the sync on (the stack's own has it off), the same list.
    const config = loadConfig({
      PROVIDER_SECRET_KEY, SETTLEMENT_SYNC_INTERVAL_MS: '200', PROVIDER_BASE_URL_ALLOWLIST: STAND_IN_ORIGINS,
      INTERNAL_TOKEN: stack.internalToken, NATS_STREAM: stack.testBus.nats?.stream, NATS_SUBJECT_PREFIX: stack.testBus.nats?.subjectPrefix,
    });
    const peer = (name: string) => createPeerTransport(stack.serviceUrls[name], stack.internalToken);
    const pool = createPool(stack.db.url, 'payments', 2);
    const part = payments.build({
      pool, bus: stack.testBus.bus, clock: { now: () => new Date() }, logger: createLogger('test', 'silent'), config,
      routing: createClient(RoutingService, peer('routing-risk')),
      providerAccounts: createClient(ProviderAccountsService, peer('routing-risk')),
      ledger: createClient(LedgerService, peer('ledger')),
      providers: await payments.loadProviders([...PROVIDERS, acmePayProvider]),
    });
    try {
      await part.start();
      const row = await eventually('the account synced', async () => (await stack.query(
        'SELECT synced_at, last_error FROM payments.settlement_syncs WHERE provider_account_id = $1', [connected.body.id],
      )).rows.find((r: any) => r.synced_at !== null));
      assert.equal(row.last_error, null);
      assert.ok(acme.requests.some((r) => r.method === 'GET' && r.path === '/settlements' && r.authorization === `Bearer ${KEY}`));
    } finally {
      await part.close();
      await pool.end();
    }
  });
});
