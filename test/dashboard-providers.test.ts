import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../services/platform/logger.js';
import { DashboardBrowser, MAIL, mailedLink, registerByMail, tokenOf } from './helpers/dashboard-browser.js';
import { captureLogs } from './helpers/log-sink.js';
import { startTestStack, type TestStack } from './helpers/stack.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';

// Settings > Provider accounts over the dashboard's API against the whole stack (PROVIDER_SECRET_KEY
// set, Stripe's stand-in as the provider): an owner connects a Stripe test account, tests it, disables
// and enables it, each audited as the owner; no answer ever carries a credential value; a read-only
// member sees the list and is refused every change; a developer may test but not connect.

const { stream } = captureLogs();
const PASSWORD = 'correct horse battery';
const SECRET_KEY = `sk_test_${randomBytes(12).toString('hex')}`;
const WEBHOOK_SECRET = `whsec_${randomBytes(12).toString('hex')}`;
const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
let stack: TestStack;
let stripe: StripeStandIn;
let owner: DashboardBrowser;
let ownerEmail: string;

async function member(role: 'read_only' | 'developer') {
  const email = `${role}-${unique()}@example.com`;
  const invited = await owner.call('POST', '/invitations', { email, role });
  assert.equal(invited.status, 201, JSON.stringify(invited.body));
  const browser = new DashboardBrowser(stack.baseUrl);
  const joined = await browser.call('POST', '/invitations/accept', { token: tokenOf(await mailedLink(stack.mailbox, email, MAIL.invitation)), password: PASSWORD });
  assert.equal(joined.status, 201, JSON.stringify(joined.body));
  return browser;
}

const noSecretIn = (answer: unknown) => {
  const text = JSON.stringify(answer);
  assert.ok(!text.includes(SECRET_KEY) && !text.includes(WEBHOOK_SECRET), `a credential in ${text}`);
};

before(async () => {
  stripe = await startStripeStandIn({ secretKeys: [SECRET_KEY] });
  stack = await startTestStack({
    logger: createLogger('test', 'info', stream), env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') },
  });
  owner = new DashboardBrowser(stack.baseUrl);
  ownerEmail = `owner-${unique()}@example.com`;
  const res = await registerByMail(owner, stack.mailbox, { email: ownerEmail, password: PASSWORD, merchant_name: 'Provider shop' });
  assert.equal(res.status, 201, JSON.stringify(res.body));
});
after(async () => {
  await stack?.close();
  await stripe?.close();
});

describe('dashboard provider accounts', () => {
  let accountId: string;

  test('the providers that can be connected are listed with the credential fields each takes', async () => {
    const res = await owner.call('GET', '/provider-accounts/providers');
    assert.equal(res.status, 200);
    const stripeFields = res.body.data.find((p: { provider: string }) => p.provider === 'stripe');
    assert.deepEqual(stripeFields, { provider: 'stripe', required: ['secret_key', 'webhook_secret'], optional: ['api_base_url'] });
    assert.ok(res.body.data.some((p: { provider: string }) => p.provider === 'adyen'));
  });

  test('an owner connects a Stripe test account in the session\'s mode; the answer names the fields, never their values', async () => {
    const res = await owner.call('POST', '/provider-accounts', {
      provider: 'stripe', name: 'Stripe test', payment_method_types: ['card'], currencies: ['eur'], fee_bps: 140, fee_fixed: 25,
      credentials: { secret_key: SECRET_KEY, webhook_secret: WEBHOOK_SECRET, api_base_url: stripe.baseUrl },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    noSecretIn(res.body);
    accountId = res.body.id;
    assert.deepEqual(
      [res.body.mode, res.body.status, res.body.provider.code, res.body.currencies, res.body.fee_bps, res.body.credentials.fields],
      ['test', 'active', 'stripe', ['EUR'], 140, ['api_base_url', 'secret_key', 'webhook_secret']],
    );
    const list = await owner.call('GET', '/provider-accounts');
    assert.deepEqual(list.body.data.map((a: { id: string }) => a.id), [accountId]);
    noSecretIn(list.body);
  });

  test('a connect missing a field is a 422 naming it; a live key on a test account is refused by name', async () => {
    const missing = await owner.call('POST', '/provider-accounts', { provider: 'stripe', name: 'Half', credentials: { secret_key: SECRET_KEY } });
    assert.deepEqual([missing.status, missing.body.error.param], [422, 'webhook_secret']);
    const live = await owner.call('POST', '/provider-accounts', {
      provider: 'stripe', name: 'Live key', credentials: { secret_key: 'sk_live_x', webhook_secret: WEBHOOK_SECRET },
    });
    assert.deepEqual([live.status, live.body.error.param], [422, 'secret_key']);
    noSecretIn(missing.body);
  });

  test('test asks Stripe (the stand-in) and says ok; disable and enable are audited with the owner as actor', async () => {
    const checked = await owner.call('POST', `/provider-accounts/${accountId}/test`);
    assert.equal(checked.status, 200, JSON.stringify(checked.body));
    assert.deepEqual([checked.body.ok, checked.body.reason], [true, null]);
    assert.ok(stripe.requests.some((r) => r.path.startsWith('/v1/balance')), 'the stand-in was asked');
    const disabled = await owner.call('POST', `/provider-accounts/${accountId}/disable`);
    assert.deepEqual([disabled.status, disabled.body.status], [200, 'disabled']);
    const listed = await owner.call('GET', '/provider-accounts');
    assert.equal(listed.body.data[0].status, 'disabled');
    const enabled = await owner.call('POST', `/provider-accounts/${accountId}/enable`);
    assert.deepEqual([enabled.status, enabled.body.status], [200, 'active']);

    const operator = new DashboardBrowser(stack.baseUrl, 'svc_operator');
    assert.equal((await operator.call('POST', '/operator/sign-in', { token: stack.operatorToken })).status, 200);
    const session = await owner.call('GET', '/session');
    const audit = await operator.call('GET', `/operator/audit-log?merchant_id=${session.body.merchant.id}&limit=100`);
    const actions = audit.body.data.filter((e: { target_id: string }) => e.target_id === accountId);
    assert.deepEqual(
      actions.map((e: { action: string; actor_email: string }) => [e.action, e.actor_email]).sort(),
      [['provider_account.connected', ownerEmail], ['provider_account.disabled', ownerEmail], ['provider_account.enabled', ownerEmail]],
    );
    noSecretIn(audit.body);
  });

  test('a read-only member sees the list without credentials and is refused connect, test, disable and enable (403)', async () => {
    const reader = await member('read_only');
    const list = await reader.call('GET', '/provider-accounts');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((a: { id: string }) => a.id), [accountId]);
    assert.equal(list.body.data[0].credentials, undefined);
    for (const [path, body] of [
      ['/provider-accounts', { provider: 'stripe', name: 'Mine', credentials: { secret_key: SECRET_KEY, webhook_secret: WEBHOOK_SECRET } }],
      [`/provider-accounts/${accountId}/test`, undefined], [`/provider-accounts/${accountId}/disable`, undefined],
      [`/provider-accounts/${accountId}/enable`, undefined],
    ] as const) {
      const res = await reader.call('POST', path, body);
      assert.deepEqual([path, res.status, res.body.error.code], [path, 403, 'forbidden']);
    }
  });

  test('a developer may test an account but not connect or disable one', async () => {
    const developer = await member('developer');
    assert.equal((await developer.call('POST', `/provider-accounts/${accountId}/test`)).status, 200);
    assert.equal((await developer.call('POST', `/provider-accounts/${accountId}/disable`)).status, 403);
    const connect = await developer.call('POST', '/provider-accounts', {
      provider: 'stripe', name: 'Dev', credentials: { secret_key: SECRET_KEY, webhook_secret: WEBHOOK_SECRET },
    });
    assert.equal(connect.status, 403);
  });

  test('another merchant\'s account is a 404 here and not in its list', async () => {
    const other = new DashboardBrowser(stack.baseUrl);
    await registerByMail(other, stack.mailbox, { email: `other-${unique()}@example.com`, password: PASSWORD, merchant_name: 'Other' });
    const res = await other.call('POST', `/provider-accounts/${accountId}/disable`);
    assert.deepEqual([res.status, res.body.error.code], [404, 'resource_not_found']);
    assert.deepEqual((await other.call('GET', '/provider-accounts')).body.data, []);
  });
});
