import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { rowsWritten } from './helpers/eventually.js';
import { request } from './helpers/stack.js';
import { runSvc } from './helpers/svc-cli.js';

interface Merchant {
  merchantId: string;
  projectId: string;
  secret: string;
}

describe('routing rules, live routing and risk velocity, through the HTTP gateway', () => {
  let stack: LicensedProviderStack;

  before(async () => {
    stack = await startLicensedProviderStack({ paymentDefaults: { payment_method: 'card' } });
  });
  after(async () => {
    await stack?.close();
  });

  const addRule = (m: Merchant, body: Record<string, unknown>) =>
    stack.manage('POST', `/projects/${m.projectId}/routing-rules`, { mode: 'test', ...body });

  test('a rule for a currency and amount range sends the payment to its providers, in its order', async () => {
    const m = await stack.newMerchantKey('test');
    const created = await addRule(m, {
      name: 'eur-mid', priority: 10, currencies: ['eur'], min_amount: 1000, max_amount: 50_000,
      providers: ['demo_alpha', 'demo_beta'],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(created.body.id, /^rtr_/);
    assert.deepEqual(
      { ...created.body, id: undefined, created_at: undefined, experiment_since: undefined },
      {
        id: undefined, object: 'routing_rule', project_id: m.projectId, mode: 'test', name: 'eur-mid', priority: 10,
        currencies: ['EUR'], countries: [], payment_method_types: [], min_amount: 1000, max_amount: 50_000,
        providers: ['demo_alpha', 'demo_beta'], strategy: null, variant: null, experiment_since: undefined, created_at: undefined,
      },
    );
    assert.equal(created.body.experiment_since, created.body.created_at);

    // Without the rule Demo Gamma is cheapest for 20.00 (see first-payment); the rule puts Alpha first.
    const inRange = await stack.pay(m.secret, { amount: 2000, currency: 'EUR' });
    assert.equal(inRange.status, 201);
    assert.equal(inRange.body.status, 'successful');
    assert.equal(inRange.body.route.rule, 'eur-mid');
    assert.equal(inRange.body.route.provider.code, 'demo_alpha');
    assert.equal(inRange.body.attempts[0].provider_account_id, 'pac_demo_alpha');
    assert.match(inRange.body.route.routing_decision_id, /^rtd_/);

    // The decision is stored with the rule's name, id and the ordered candidates.
    const rows = await rowsWritten('the decision', () => stack.query(
      'SELECT rule, rule_id, candidates, payment_id FROM routing_risk.routing_decisions WHERE id = $1',
      [inRange.body.route.routing_decision_id],
    ));
    assert.deepEqual(rows, [{
      rule: 'eur-mid', rule_id: created.body.id, candidates: ['pac_demo_alpha', 'pac_demo_beta'], payment_id: inRange.body.id,
    }]);

    for (const body of [{ amount: 999, currency: 'EUR' }, { amount: 50_001, currency: 'EUR' }, { amount: 2000, currency: 'USD' }]) {
      const res = await stack.pay(m.secret, body);
      assert.equal(res.body.route.rule, 'default', JSON.stringify(body));
      assert.match(res.body.route.routing_decision_id, /^rtd_/);
    }
    // Bounds are inclusive.
    assert.equal((await stack.pay(m.secret, { amount: 50_000, currency: 'EUR' })).body.route.rule, 'eur-mid');
  });

  test('rules are tried lowest priority first; deleting one hands its payments to the next', async () => {
    const m = await stack.newMerchantKey('test');
    const late = await addRule(m, { name: 'eur-alpha', priority: 20, currencies: ['EUR'], providers: ['demo_alpha'] });
    const early = await addRule(m, { name: 'eur-beta', priority: 5, currencies: ['EUR'], providers: ['pac_demo_beta'] });
    const listed = await stack.manage('GET', `/projects/${m.projectId}/routing-rules?mode=test`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.map((r: any) => r.name), ['eur-beta', 'eur-alpha']);

    const first = await stack.pay(m.secret, { amount: 1000, currency: 'EUR' });
    assert.equal(first.body.route.rule, 'eur-beta');
    assert.equal(first.body.route.provider.code, 'demo_beta');

    const deleted = await stack.manage('DELETE', `/projects/${m.projectId}/routing-rules/${early.body.id}?mode=test`);
    assert.equal(deleted.status, 200);
    assert.equal(deleted.body.id, early.body.id);
    const second = await stack.pay(m.secret, { amount: 1000, currency: 'EUR' });
    assert.equal(second.body.route.rule, 'eur-alpha');
    assert.equal(second.body.route.provider.code, 'demo_alpha');

    // Rules are per project and mode: another project's payments and this project's live list are untouched.
    const other = await stack.newMerchantKey('test');
    assert.equal((await stack.pay(other.secret, { amount: 1000, currency: 'EUR' })).body.route.rule, 'default');
    const live = await stack.manage('GET', `/projects/${m.projectId}/routing-rules?mode=live`);
    assert.deepEqual(live.body.data, []);
    const again = await stack.manage('DELETE', `/projects/${m.projectId}/routing-rules/${early.body.id}?mode=test`);
    assert.equal(again.status, 404);
    const wrongMode = await stack.manage('DELETE', `/projects/${m.projectId}/routing-rules/${late.body.id}?mode=live`);
    assert.equal(wrongMode.status, 404);

    // Changes are audited in the gateway's log.
    const audit = await stack.query(
      `SELECT action FROM gateway.audit_log WHERE target_id = ANY($1) ORDER BY created_at, action`,
      [[early.body.id, late.body.id]],
    );
    assert.deepEqual(audit.rows.map((r) => r.action).sort(), ['routing_rule.created', 'routing_rule.created', 'routing_rule.deleted']);
  });

  test('the management API refuses bad rules with 422 naming the field, and unknown projects with 404', async () => {
    const m = await stack.newMerchantKey('test');
    await addRule(m, { name: 'taken', priority: 1, providers: ['demo_alpha'] });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'x', priority: 1, providers: ['no_such_provider'] }, 'providers'],
      [{ name: 'x', priority: 1, providers: [] }, 'providers'],
      [{ name: 'taken', priority: 2, providers: ['demo_beta'] }, 'name'],
      [{ name: 'default', priority: 2, providers: ['demo_beta'] }, 'name'],
      [{ name: 'x', priority: '1', providers: ['demo_beta'] }, 'priority'],
      [{ name: 'x', priority: 1, min_amount: 10, max_amount: 5, providers: ['demo_beta'] }, 'max_amount'],
      [{ name: 'x', priority: 1, currencies: ['EURO'], providers: ['demo_beta'] }, 'currencies'],
      [{ name: 'x', priority: 1, payment_method_types: ['cheque'], providers: ['demo_beta'] }, 'payment_method_types'],
      [{ name: 'x', priority: 1, providers: ['demo_beta'], colour: 'blue' }, 'colour'],
      [{ mode: 'prod', name: 'x', priority: 1, providers: ['demo_beta'] }, 'mode'],
      [{ name: 'x', priority: 1, providers: ['demo_beta'], strategy: 'fast' }, 'strategy'],
      [{ name: 'x', priority: 1, providers: ['demo_beta'], strategy: { type: 'bandit' } }, 'strategy.type'],
      [{ name: 'x', priority: 1, providers: ['demo_beta', 'demo_alpha'], strategy: { type: 'volume_split', weights: { demo_beta: 50 } } },
        'strategy.weights'],
      [{ name: 'x', priority: 1, providers: ['demo_beta'], strategy: { type: 'success_rate', settings: { explorationShare: 0.5 } } },
        'strategy.settings.explorationShare'],
    ];
    for (const [body, param] of cases) {
      const res = await addRule(m, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.param, param, JSON.stringify(body));
    }
    const unknown = await stack.manage('POST', '/projects/prj_nope/routing-rules', { mode: 'test', name: 'x', priority: 1, providers: ['demo_alpha'] });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'resource_not_found');
    const noMode = await stack.manage('GET', `/projects/${m.projectId}/routing-rules`);
    assert.equal(noMode.status, 422);
    assert.equal(noMode.body.error.param, 'mode');
    const noToken = await request(stack.baseUrl, 'GET', `/manage/v1/projects/${m.projectId}/routing-rules?mode=test`);
    assert.equal(noToken.status, 401);
  });

  test('a live key with no connected provider account fails the payment: policy, no_eligible_provider', async () => {
    const m = await stack.newMerchantKey('live');
    // A live rule naming a demo provider does not make the platform's demo accounts reachable.
    const rule = await stack.manage('POST', `/projects/${m.projectId}/routing-rules`, {
      mode: 'live', name: 'demo-in-live', priority: 1, providers: ['demo_alpha'],
    });
    assert.equal(rule.status, 201);
    const res = await stack.pay(m.secret, { amount: 1000, currency: 'EUR' });
    assert.equal(res.status, 201);
    assert.equal(res.body.mode, 'live');
    assert.equal(res.body.status, 'failed');
    assert.deepEqual(
      { code: res.body.failure.code, category: res.body.failure.category },
      { code: 'no_eligible_provider', category: 'policy' },
    );
    assert.equal(res.body.attempts.length, 0);
    assert.equal(res.body.route.provider, null);
    assert.equal(res.body.route.rule, 'default');
    assert.match(res.body.route.routing_decision_id, /^rtd_/);
  });

  test('a live key reaches a licensed provider account connected to its project, never a demo one', async () => {
    // A live account at a demo provider (a misconfiguration) is not eligible: demo providers move no money.
    const m = await stack.liveMerchantAt('prv_demo_alpha', { fixed: 0, bps: 0 });
    const refused = await stack.pay(m.secret, { amount: 1000, currency: 'EUR' });
    assert.equal(refused.body.failure.code, 'no_eligible_provider');

    // A licensed provider connected to the project is routed to. No connector is installed for it
    // in this stack, so the attempt fails as the provider being unavailable, not as "no provider".
    await stack.query(
      `INSERT INTO routing_risk.providers (id, code, name, kind, methods) VALUES ('prv_acme', 'acme_pay', 'Acme Pay', 'licensed', '{card}')
       ON CONFLICT DO NOTHING`,
    );
    await stack.addLiveAccount(m, 'prv_acme', { fixed: 25, bps: 150 });
    const routed = await stack.pay(m.secret, { amount: 1000, currency: 'EUR' });
    assert.equal(routed.body.status, 'failed');
    assert.equal(routed.body.attempts.length, 1);
    assert.equal(routed.body.attempts[0].provider_account_id, `pac_acme_${m.projectId}`);
    assert.equal(routed.body.failure.category, 'technical');
    // Another merchant's live key does not see that account.
    const other = await stack.newMerchantKey('live');
    assert.equal((await stack.pay(other.secret, { amount: 1000, currency: 'EUR' })).body.failure.code, 'no_eligible_provider');
  });

  test('velocity: the sixth payment of one customer within ten minutes scores 30 more', async () => {
    const m = await stack.newMerchantKey('test');
    const customer = { email: 'busy@example.com' };
    const scores: number[] = [];
    for (let i = 0; i < 6; i++) scores.push((await stack.pay(m.secret, { amount: 500, currency: 'EUR', customer })).body.risk.score);
    assert.deepEqual(scores, [0, 0, 0, 0, 0, 30]);
    const rows = await rowsWritten('the six risk decisions', () => stack.query(
      `SELECT reasons FROM routing_risk.risk_decisions WHERE project_id = $1 ORDER BY created_at DESC, id DESC`,
      [m.projectId],
    ), 6);
    assert.deepEqual(rows[0].reasons, ['customer_velocity']);
    // Another customer of the same project, and the same customer elsewhere, start from zero.
    assert.equal((await stack.pay(m.secret, { amount: 500, currency: 'EUR', customer: { email: 'calm@example.com' } })).body.risk.score, 0);
    const other = await stack.newMerchantKey('test');
    assert.equal((await stack.pay(other.secret, { amount: 500, currency: 'EUR', customer })).body.risk.score, 0);
    // Only digests of the customer key and device are stored.
    const stored = await stack.query('SELECT customer_key_hash FROM routing_risk.risk_decisions WHERE project_id = $1 LIMIT 1', [m.projectId]);
    assert.match(stored.rows[0].customer_key_hash, /^[0-9a-f]{64}$/);
  });

  test('svc routing-rule create, list and delete', async () => {
    const m = await stack.newMerchantKey('test');
    const env: NodeJS.ProcessEnv = { ...process.env, SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken };
    delete env.DATA_DIR;
    const svc = (args: string[]) => runSvc(args, env, process.cwd());
    const created = await svc(['routing-rule', 'create', '--project', m.projectId, '--mode', 'test', '--name', 'gbp',
      '--priority', '3', '--providers', 'demo_beta,demo_alpha', '--currencies', 'gbp', '--max-amount', '5000', '--json']);
    assert.equal(created.code, 0, created.stderr);
    const rule = JSON.parse(created.stdout);
    assert.deepEqual([rule.name, rule.currencies, rule.max_amount, rule.providers], ['gbp', ['GBP'], 5000, ['demo_beta', 'demo_alpha']]);
    assert.equal((await stack.pay(m.secret, { amount: 5000, currency: 'GBP' })).body.route.provider.code, 'demo_beta');

    const listed = await svc(['routing-rule', 'list', '--project', m.projectId, '--mode', 'test']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, new RegExp(`${rule.id}\\s+test\\s+#3\\s+gbp: currency GBP, amount 0..5000 -> demo_beta, demo_alpha`));

    // A rule's strategy: kept, listed, and it orders the route (a 100/0 split starts at Alpha).
    const split = await svc(['routing-rule', 'create', '--project', m.projectId, '--mode', 'test', '--name', 'eur-split',
      '--priority', '4', '--providers', 'demo_beta,demo_alpha', '--currencies', 'eur',
      '--strategy', '{"type":"volume_split","weights":{"demo_beta":0,"demo_alpha":100}}', '--json']);
    assert.equal(split.code, 0, split.stderr);
    assert.deepEqual(JSON.parse(split.stdout).strategy, { type: 'volume_split', weights: { demo_beta: 0, demo_alpha: 100 } });
    const splitPaid = await stack.pay(m.secret, { amount: 5000, currency: 'EUR' });
    assert.equal(splitPaid.body.route.rule, 'eur-split');
    assert.equal(splitPaid.body.route.provider.code, 'demo_alpha');
    const [decision] = await rowsWritten('the decision', () => stack.query('SELECT strategy, reason FROM routing_risk.routing_decisions WHERE id = $1',
      [splitPaid.body.route.routing_decision_id]));
    assert.deepEqual(decision, { strategy: 'volume_split', reason: 'Demo Alpha first: this payment\'s arm of the split (Demo Beta 0 %, Demo Alpha 100 %)' });
    assert.match((await svc(['routing-rule', 'list', '--project', m.projectId, '--mode', 'test'])).stdout, /eur-split: currency EUR -> demo_beta, demo_alpha by volume_split/);
    const badStrategy = await svc(['routing-rule', 'create', '--project', m.projectId, '--mode', 'test', '--name', 'y', '--priority', '5',
      '--providers', 'demo_beta', '--strategy', 'fast']);
    assert.equal(badStrategy.code, 2);
    assert.match(badStrategy.stderr, /--strategy must be a JSON object/);
    await svc(['routing-rule', 'delete', JSON.parse(split.stdout).id, '--project', m.projectId, '--mode', 'test']);

    const usage = await svc(['routing-rule', 'create', '--project', m.projectId, '--mode', 'test', '--name', 'x', '--priority', 'high', '--providers', 'demo_beta']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--priority must be a whole number/);

    const deleted = await svc(['routing-rule', 'delete', rule.id, '--project', m.projectId, '--mode', 'test']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /^deleted rtr_/);
    const empty = await svc(['routing-rule', 'list', '--project', m.projectId, '--mode', 'test', '--json']);
    assert.deepEqual(JSON.parse(empty.stdout), { data: [] });
  });
});
