// Lists a stranger can grow: 150 credentials of up to 16 KiB each were
// accepted on one stored method, and a developer PUT 1,200 sandbox behaviour segments; every payment
// and listing read them all. Looking again at every list a project can grow that each payment reads,
// routing rules and active provider accounts had no cap either. Now each list has its documented
// cap (services/contract/project-caps.ts): one more is 409 limit_reached with nothing stored,
// concurrent additions never pass it, changing what is already there still works at the cap, and
// removing (or disabling) one frees its place.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { randomBytes } from 'node:crypto';
import {
  MAX_ACTIVE_PROVIDER_ACCOUNTS, MAX_DEMO_SEGMENTS, MAX_PAYMENT_METHOD_CREDENTIALS, MAX_ROUTING_RULES,
} from '../services/contract/project-caps.js';
import type { Connector } from '../services/payments/index.js';
import { expectError } from './helpers/api-assertions.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

const COUNTRIES = ['DE', 'FR', 'NL', 'BE', 'AT', 'ES', 'IT', 'PT', 'PL', 'SE', 'DK', 'FI', 'IE', 'GB', 'US', 'CA', 'AU', 'JP'];
const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'CHF', 'SEK', 'DKK', 'PLN'];

/** The n-th of many distinct sandbox segments: provider and country change first, then the currency. */
function segment(n: number) {
  const providers = ['demo_alpha', 'demo_beta', 'demo_gamma'];
  return {
    mode: 'test', provider: providers[n % 3], payment_method: 'card',
    country: COUNTRIES[Math.floor(n / 3) % COUNTRIES.length], currency: CURRENCIES[Math.floor(n / (3 * COUNTRIES.length))],
  };
}

function expectLimit(res: { status: number; body: any }, what: RegExp) {
  expectError(res, 409, 'invalid_request_error', 'limit_reached');
  assert.match(res.body.error.message, what);
}

describe('lists a stranger can grow are capped', () => {
  let stack: TestStack;
  let key: string;
  let projectId: string;

  before(async () => {
    // Connecting accounts needs the key; the stand-in for Stripe is never called.
    stack = await startTestStack({ env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') }, connectors: { stripe: {} as Connector } });
    ({ secret: key, projectId } = await stack.newMerchantKey('test'));
  });
  after(() => stack?.close());

  const createMethod = async () => {
    const res = await request(stack.baseUrl, 'POST', '/v1/payment-methods', {
      key, body: { type: 'card', provider_token: 'tok_first', provider_code: 'demo_alpha' },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.id as string;
  };
  const addToken = (pm: string, n: number) => request(stack.baseUrl, 'POST', `/v1/payment-methods/${pm}/credentials`, {
    key, body: { type: 'provider_token', token: `tok_${n}_${'x'.repeat(64)}`, provider_code: 'demo_beta' },
  });
  const credentials = async (pm: string) => (await stack.query(
    'SELECT count(*)::int AS n FROM payments.payment_method_credentials WHERE payment_method_id = $1', [pm])).rows[0].n as number;

  test(`a stored method holds at most ${MAX_PAYMENT_METHOD_CREDENTIALS} credentials: one more is 409 limit_reached, removing one frees a place`, async () => {
    const pm = await createMethod();
    for (let n = 1; n < MAX_PAYMENT_METHOD_CREDENTIALS; n++) assert.equal((await addToken(pm, n)).status, 201);
    const refused = await addToken(pm, 99);
    expectLimit(refused, new RegExp(`${pm} already has ${MAX_PAYMENT_METHOD_CREDENTIALS} credentials`));
    const vault = await request(stack.baseUrl, 'POST', `/v1/payment-methods/${pm}/credentials`, {
      key, body: { type: 'vault_token', token: 'bt_over', vault: 'basis_theory' },
    });
    expectLimit(vault, /credentials/);
    assert.equal(await credentials(pm), MAX_PAYMENT_METHOD_CREDENTIALS, 'nothing was stored');

    const listed = await request(stack.baseUrl, 'GET', `/v1/payment-methods/${pm}/credentials`, { key });
    assert.equal(listed.body.data.length, MAX_PAYMENT_METHOD_CREDENTIALS);
    const last = listed.body.data.at(-1).id;
    assert.equal((await request(stack.baseUrl, 'DELETE', `/v1/payment-methods/${pm}/credentials/${last}`, { key })).status, 200);
    assert.equal((await addToken(pm, 100)).status, 201, 'a removed credential frees its place');
  });

  test('concurrent credential additions never pass the cap', async () => {
    const pm = await createMethod();
    const results = await Promise.all(Array.from({ length: MAX_PAYMENT_METHOD_CREDENTIALS + 5 }, (_, n) => addToken(pm, n)));
    assert.equal(results.filter((r) => r.status === 201).length, MAX_PAYMENT_METHOD_CREDENTIALS - 1, 'the first is the creating token');
    assert.ok(results.filter((r) => r.status !== 201).every((r) => r.status === 409 && r.body.error.code === 'limit_reached'),
      JSON.stringify(results.map((r) => r.status)));
    assert.equal(await credentials(pm), MAX_PAYMENT_METHOD_CREDENTIALS);
  });

  const put = (body: Record<string, unknown>, project = projectId) =>
    stack.manage('PUT', `/projects/${project}/demo-behaviour`, { ...body, approval_rate: 0.5 });
  const segments = async (project = projectId) => (await stack.query(
    'SELECT count(*)::int AS n FROM payments.demo_behaviours WHERE project_id = $1', [project])).rows[0].n as number;

  test(`a project holds at most ${MAX_DEMO_SEGMENTS} sandbox behaviour segments; changing one at the cap works; clearing frees places`, async () => {
    for (let n = 0; n < MAX_DEMO_SEGMENTS; n++) {
      const res = await put(segment(n));
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    expectLimit(await put(segment(MAX_DEMO_SEGMENTS)), new RegExp(`already has ${MAX_DEMO_SEGMENTS} sandbox behaviour segments`));
    assert.equal(await segments(), MAX_DEMO_SEGMENTS, 'nothing was stored');

    const changed = await stack.manage('PUT', `/projects/${projectId}/demo-behaviour`, { ...segment(0), latency_ms: 7 });
    assert.equal(changed.status, 200, 'a segment already there is changed at the cap');
    assert.equal(changed.body.latency_ms, 7);

    const cleared = await stack.manage('DELETE', `/projects/${projectId}/demo-behaviour?mode=test&provider=demo_gamma`);
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.equal((await put(segment(MAX_DEMO_SEGMENTS))).status, 200, 'cleared segments free their places');
  });

  test('concurrent segment creations never pass the cap', async () => {
    const other = (await stack.newMerchantKey('test')).projectId;
    const results = await Promise.all(Array.from({ length: MAX_DEMO_SEGMENTS + 10 }, (_, n) => put(segment(n), other)));
    assert.equal(results.filter((r) => r.status === 200).length, MAX_DEMO_SEGMENTS);
    assert.ok(results.filter((r) => r.status !== 200).every((r) => r.status === 409 && r.body.error.code === 'limit_reached'),
      JSON.stringify(results.filter((r) => r.status !== 200 && r.status !== 409).map((r) => r.body)));
    assert.equal(await segments(other), MAX_DEMO_SEGMENTS);
  });

  const rule = (project: string, n: number) => stack.manage('POST', `/projects/${project}/routing-rules`, {
    mode: 'test', name: `rule-${n}`, priority: n, providers: ['demo_alpha'],
  });
  const rules = async (project: string) => (await stack.query(
    'SELECT count(*)::int AS n FROM routing_risk.routing_rules WHERE project_id = $1', [project])).rows[0].n as number;

  test(`a project holds at most ${MAX_ROUTING_RULES} routing rules per mode; deleting one frees its place`, async () => {
    const project = (await stack.newMerchantKey('test')).projectId;
    for (let n = 0; n < MAX_ROUTING_RULES; n++) assert.equal((await rule(project, n)).status, 201);
    expectLimit(await rule(project, MAX_ROUTING_RULES), new RegExp(`already has ${MAX_ROUTING_RULES} test routing rules`));
    assert.equal(await rules(project), MAX_ROUTING_RULES, 'nothing was stored');
    const first = (await stack.manage('GET', `/projects/${project}/routing-rules?mode=test`)).body.data[0].id;
    assert.equal((await stack.manage('DELETE', `/projects/${project}/routing-rules/${first}?mode=test`)).status, 200);
    assert.equal((await rule(project, MAX_ROUTING_RULES)).status, 201, 'a deleted rule frees its place');
  });

  test('concurrent routing rule creations never pass the cap', async () => {
    const project = (await stack.newMerchantKey('test')).projectId;
    const results = await Promise.all(Array.from({ length: MAX_ROUTING_RULES + 5 }, (_, n) => rule(project, n)));
    assert.equal(results.filter((r) => r.status === 201).length, MAX_ROUTING_RULES);
    assert.ok(results.filter((r) => r.status !== 201).every((r) => r.status === 409 && r.body.error.code === 'limit_reached'));
    assert.equal(await rules(project), MAX_ROUTING_RULES);
  });

  const connect = (project: string, n: number) => stack.manage('POST', `/projects/${project}/provider-accounts`, {
    mode: 'test', provider: 'stripe', name: `Stripe ${n}`, credentials: { secret_key: `sk_test_${n}`, webhook_secret: `whsec_${n}` },
  });
  const accounts = async (project: string) => (await stack.query(
    `SELECT count(*) FILTER (WHERE status = 'active')::int AS active,
       (SELECT count(*)::int FROM payments.provider_credentials WHERE project_id = $1) AS credentials
     FROM routing_risk.provider_accounts WHERE project_id = $1`, [project])).rows[0] as { active: number; credentials: number };

  test(`a project holds at most ${MAX_ACTIVE_PROVIDER_ACCOUNTS} active provider accounts per mode; disabling one frees its place, enabling past it is refused`, async () => {
    const project = (await stack.newMerchantKey('test')).projectId;
    for (let n = 0; n < MAX_ACTIVE_PROVIDER_ACCOUNTS; n++) {
      const res = await connect(project, n);
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    expectLimit(await connect(project, 99), new RegExp(`already has ${MAX_ACTIVE_PROVIDER_ACCOUNTS} active provider accounts`));
    assert.deepEqual(await accounts(project), { active: MAX_ACTIVE_PROVIDER_ACCOUNTS, credentials: MAX_ACTIVE_PROVIDER_ACCOUNTS },
      'neither the account nor its credentials were kept');
    const first = (await stack.manage('GET', `/projects/${project}/provider-accounts?mode=test`)).body.data[0].id;
    assert.equal((await stack.manage('POST', `/provider-accounts/${first}/disable`)).status, 200);
    assert.equal((await connect(project, 100)).status, 201, 'a disabled account frees its place');
    expectLimit(await stack.manage('POST', `/provider-accounts/${first}/enable`), /active provider accounts/);
    assert.equal((await accounts(project)).active, MAX_ACTIVE_PROVIDER_ACCOUNTS);
  });

  test('concurrent provider account connects never pass the cap', async () => {
    const project = (await stack.newMerchantKey('test')).projectId;
    const results = await Promise.all(Array.from({ length: MAX_ACTIVE_PROVIDER_ACCOUNTS + 5 }, (_, n) => connect(project, n)));
    assert.equal(results.filter((r) => r.status === 201).length, MAX_ACTIVE_PROVIDER_ACCOUNTS);
    assert.ok(results.filter((r) => r.status !== 201).every((r) => r.status === 409 && r.body.error.code === 'limit_reached'));
    assert.equal((await accounts(project)).active, MAX_ACTIVE_PROVIDER_ACCOUNTS);
  });
});
