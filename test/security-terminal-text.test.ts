// Escape sequences on the operator's terminal: a merchant name from any sign-up,
// and a provider account's name, holding ESC, BEL or C1 control characters was printed raw by `svc
// merchant list`, `svc status` and `svc provider list`, so a stranger could rewrite the operator's
// terminal title or screen. Now every text `svc` prints shows control characters (and bidi
// overrides) escaped, in its lines and in --json, and names stored from now on refuse them: 422
// validation_error naming the field, with nothing stored.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Connector } from '../services/payments/index.js';
import { expectError } from './helpers/api-assertions.js';
import { DashboardBrowser } from './helpers/dashboard-browser.js';
import { startTestStack, type TestStack } from './helpers/stack.js';
import { runSvc } from './helpers/svc-cli.js';

/** A title rewrite (OSC … BEL), a screen clear by C1 CSI, a right-to-left override and a faked next line. */
const HOSTILE = 'Evil\u001b]0;pwned\u0007 Co\u009b2J\u202eok\u2066\u007f\nmerchant mer_fake  Trusted';
const SHOWN = 'Evil\\u001b]0;pwned\\u0007 Co\\u009b2J\\u202eok\\u2066\\u007f\\u000amerchant mer_fake  Trusted';
/** What a terminal acts on: C0 but the line breaks `svc` itself writes, DEL, C1, bidi embeddings, overrides and isolates. */
const ACTED_ON = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const ACCEPTING_STRIPE = {
  async authorize() {
    return { outcome: 'success', providerPaymentId: 'pi_1', providerCode: null, providerMessage: null, fee: 0n };
  },
  async getStatus() {
    return { found: false };
  },
  async refund() {
    return { outcome: 'success', providerRefundId: 're_1', providerCode: null, providerMessage: null };
  },
} as Connector;

describe('stored text on the operator\'s terminal', () => {
  let stack: TestStack;
  let m: { merchantId: string; projectId: string };
  let accountId: string;

  before(async () => {
    stack = await startTestStack({
      env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') }, connectors: { stripe: ACCEPTING_STRIPE },
    });
    m = await stack.newMerchantKey('test');
    const account = await stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
      mode: 'test', provider: 'stripe', name: 'Stripe test', credentials: { secret_key: 'sk_test_x', webhook_secret: 'whsec_x' },
    });
    assert.equal(account.status, 201, JSON.stringify(account.body));
    accountId = account.body.id;
    // As rows stored before names were checked hold them.
    await stack.query('UPDATE gateway.merchants SET name = $2 WHERE id = $1', [m.merchantId, HOSTILE]);
    await stack.query('UPDATE gateway.projects SET name = $2 WHERE id = $1', [m.projectId, HOSTILE]);
    await stack.query('UPDATE gateway.api_keys SET name = $2 WHERE project_id = $1', [m.projectId, HOSTILE]);
    await stack.query('UPDATE routing_risk.provider_accounts SET name = $2 WHERE id = $1', [accountId, HOSTILE]);
  });
  after(() => stack?.close());

  const svc = (...args: string[]) => runSvc(args, { SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken });

  test('svc merchant list, project list, key list, status and provider list show control characters escaped', async () => {
    for (const args of [
      ['merchant', 'list'], ['project', 'list', '--merchant', m.merchantId], ['key', 'list', '--project', m.projectId], ['status'],
      ['provider', 'list', '--project', m.projectId], ['provider', 'show', accountId],
    ]) {
      const run = await svc(...args);
      assert.equal(run.code, 0, `${args.join(' ')}: ${run.stderr}`);
      assert.doesNotMatch(run.stdout, ACTED_ON, `svc ${args.join(' ')} prints no control character`);
      assert.ok(run.stdout.includes(SHOWN), `svc ${args.join(' ')} shows them escaped:\n${run.stdout}`);
      assert.ok(!run.stdout.split('\n').some((line) => line.startsWith('merchant mer_fake')), 'a stored line break fakes no line');
    }
  });

  test('--json keeps the names exact for a program and prints no control character either', async () => {
    for (const args of [['merchant', 'list'], ['status'], ['provider', 'list', '--project', m.projectId]]) {
      const run = await svc(...args, '--json');
      assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(run.stdout, ACTED_ON, `svc ${args.join(' ')} --json`);
      const text = JSON.stringify(JSON.parse(run.stdout));
      assert.ok(text.includes(JSON.stringify(HOSTILE).slice(1, -1)), 'the parsed JSON holds the stored name as it is');
    }
  });

  test('a name with a control character is refused 422 naming the field, wherever it is given, and nothing is stored', async () => {
    const merchants = async () => (await stack.query('SELECT count(*)::int AS n FROM gateway.merchants')).rows[0].n;
    const before = await merchants();
    const cases: Array<[string, () => Promise<{ status: number; body: any }>, string]> = [
      ['merchant', () => stack.manage('POST', '/merchants', { name: 'Shop\u001b[2J' }), 'name'],
      ['sign-up', () => new DashboardBrowser(stack.baseUrl).call('POST', '/register', {
        email: `x-${randomBytes(4).toString('hex')}@example.com`, password: 'a long enough password', merchant_name: 'Shop\u0007',
      }), 'merchant_name'],
      ['key', () => stack.manage('POST', `/projects/${m.projectId}/keys`, { mode: 'test', name: 'k\u009b' }), 'name'],
      ['provider account', () => stack.manage('POST', `/projects/${m.projectId}/provider-accounts`, {
        mode: 'test', provider: 'stripe', name: 'Stripe\u202e', credentials: { secret_key: 'sk_test_y', webhook_secret: 'whsec_y' },
      }), 'name'],
    ];
    for (const [what, call, param] of cases) {
      const res = await call();
      expectError(res, 422, 'invalid_request_error', 'validation_error', param);
      assert.match(res.body.error.message, /control character/, what);
    }
    assert.equal(await merchants(), before);
    const keys = await stack.query(`SELECT count(*)::int AS n FROM gateway.api_keys WHERE name = 'k\u009b'`);
    assert.equal(keys.rows[0].n, 0);
    const accounts = await stack.query('SELECT count(*)::int AS n FROM routing_risk.provider_accounts WHERE project_id = $1', [m.projectId]);
    assert.equal(accounts.rows[0].n, 1);
    // Ordinary names of any script still pass.
    assert.equal((await stack.manage('POST', '/merchants', { name: 'Café Ōsaka — شركة' })).status, 201);
  });
});
