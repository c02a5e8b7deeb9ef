import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DashboardBrowser, registerByMail } from './helpers/dashboard-browser.js';
import { eventually } from './helpers/eventually.js';
import { runSvc } from './helpers/svc-cli.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';

// The sandbox's demo behaviour through the management API and `svc sandbox behaviour`:
// what is stored per project and segment, what the demo providers then play, and every refusal:
// a 4xx in the contract's envelope naming the field, with nothing stored.

const MINUTE = 60_000;
const BETA_CARD_EUR = { mode: 'test', provider: 'demo_beta', payment_method: 'card', currency: 'EUR' };

describe('sandbox demo behaviour', () => {
  const clock = offsetClock();
  let stack: TestStack;
  let m: { merchantId: string; projectId: string; secret: string };
  let other: { merchantId: string; projectId: string; secret: string };

  before(async () => {
    // Reconciliation returns a late charge: every half second, so the late successes' test need not wait a minute.
    stack = await startTestStack({ clock, env: { RECONCILIATION_SWEEP_MS: '500' } });
    m = await stack.newMerchantKey('test');
    other = await stack.newMerchantKey('test');
  });
  after(async () => {
    await stack?.close();
  });

  const path = (projectId = m.projectId) => `/projects/${projectId}/demo-behaviour`;
  const stored = async () => (await stack.query('SELECT * FROM payments.demo_behaviours ORDER BY project_id')).rows;
  const pay = async (key: string, body: Record<string, unknown> = {}) => {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 1000, currency: 'EUR', payment_method: 'card', country: 'DE', ...body },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };

  test('bad input is a 4xx naming the field, and stores nothing', async () => {
    const cases: [string, Record<string, unknown>, number, string, string][] = [
      ['live mode', { ...BETA_CARD_EUR, mode: 'live', approval_rate: 0.5 }, 422, 'validation_error', 'mode'],
      ['approval above 1', { ...BETA_CARD_EUR, approval_rate: 1.2 }, 422, 'validation_error', 'approval_rate'],
      ['negative approval', { ...BETA_CARD_EUR, approval_rate: -0.1 }, 422, 'validation_error', 'approval_rate'],
      ['approval as text', { ...BETA_CARD_EUR, approval_rate: '0.8' }, 422, 'validation_error', 'approval_rate'],
      ['technical errors above 1', { ...BETA_CARD_EUR, technical_error_rate: 2 }, 422, 'validation_error', 'technical_error_rate'],
      ['latency too long', { ...BETA_CARD_EUR, latency_ms: 10_001 }, 422, 'validation_error', 'latency_ms'],
      ['fractional latency', { ...BETA_CARD_EUR, latency_ms: 1.5 }, 422, 'validation_error', 'latency_ms'],
      ['negative outage', { ...BETA_CARD_EUR, outage_minutes: -1 }, 422, 'validation_error', 'outage_minutes'],
      ['late successes above 1', { ...BETA_CARD_EUR, late_success_rate: 1.5 }, 422, 'validation_error', 'late_success_rate'],
      ['late successes as text', { ...BETA_CARD_EUR, late_success_rate: '0.3' }, 422, 'validation_error', 'late_success_rate'],
      ['outage over a day', { ...BETA_CARD_EUR, outage_minutes: 1_441 }, 422, 'validation_error', 'outage_minutes'],
      ['huge outage', { ...BETA_CARD_EUR, outage_minutes: 2 ** 53 - 1 }, 422, 'validation_error', 'outage_minutes'],
      ['licensed provider', { ...BETA_CARD_EUR, provider: 'stripe', approval_rate: 0.5 }, 422, 'validation_error', 'provider'],
      ['unknown method', { ...BETA_CARD_EUR, payment_method: 'cheque', approval_rate: 0.5 }, 422, 'validation_error', 'payment_method'],
      ['unknown currency', { ...BETA_CARD_EUR, currency: 'EUX', approval_rate: 0.5 }, 422, 'validation_error', 'currency'],
      ['bad country', { ...BETA_CARD_EUR, country: 'DEU', approval_rate: 0.5 }, 422, 'validation_error', 'country'],
    ];
    for (const [name, body, status, code, param] of cases) {
      const res = await stack.manage('PUT', path(), body);
      assert.equal(res.status, status, `${name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.type, 'invalid_request_error', name);
      assert.equal(res.body.error.code, code, name);
      assert.equal(res.body.error.param, param, name);
    }
    const missing = await stack.manage('PUT', path(), { mode: 'test', provider: 'demo_beta', approval_rate: 0.5 });
    assert.ok(missing.status >= 400 && missing.status < 500, JSON.stringify(missing.body));
    assert.equal(missing.body.error.type, 'invalid_request_error');
    const unknownProject = await stack.manage('PUT', path('prj_nothing'), { ...BETA_CARD_EUR, approval_rate: 0.5 });
    assert.equal(unknownProject.status, 404);
    assert.equal(unknownProject.body.error.code, 'resource_not_found');
    const liveShow = await stack.manage('GET', `${path()}?mode=live`);
    assert.equal(liveShow.status, 422);
    assert.equal(liveShow.body.error.param, 'mode');
    const liveClear = await stack.manage('DELETE', `${path()}?mode=live`);
    assert.equal(liveClear.status, 422);
    assert.equal(liveClear.body.error.param, 'mode');
    assert.deepEqual(await stored(), []);
  });

  test('set changes only what it gives, is audited, and is the project\'s own', async () => {
    const set = await stack.manage('PUT', path(), { ...BETA_CARD_EUR, approval_rate: 0, latency_ms: 5 });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual({ ...set.body, updated_at: undefined }, {
      object: 'demo_behaviour', project_id: m.projectId, mode: 'test', provider: 'demo_beta', payment_method: 'card',
      currency: 'EUR', country: '*', approval_rate: 0, technical_error_rate: 0, latency_ms: 5, outage_until: null,
      late_success_rate: 0, updated_at: undefined,
    });
    const changed = await stack.manage('PUT', path(), { ...BETA_CARD_EUR, technical_error_rate: 0.25 });
    assert.equal(changed.body.approval_rate, 0, 'kept');
    assert.equal(changed.body.latency_ms, 5, 'kept');
    assert.equal(changed.body.technical_error_rate, 0.25);
    const audit = await stack.query(
      `SELECT project_id, target_id, data FROM gateway.audit_log WHERE action = 'demo_behaviour.set' ORDER BY created_at`);
    assert.equal(audit.rows.length, 2);
    assert.equal(audit.rows[1].project_id, m.projectId);
    assert.equal(audit.rows[1].target_id, 'demo_beta/card/EUR/*');
    assert.equal(audit.rows[1].data.technical_error_rate, 0.25);

    const shown = await stack.manage('GET', `${path()}?mode=test`);
    assert.equal(shown.status, 200);
    assert.deepEqual(shown.body.data.map((b: any) => b.provider), ['demo_beta']);
    assert.deepEqual((await stack.manage('GET', `${path(other.projectId)}?mode=test`)).body.data, [], 'another project sees none');
  });

  test('the demo providers play it per attempt; a test_scenario wins; another project is untouched', async () => {
    // Beta (as set above, without technical errors) never approves: a payment fails over from it.
    await stack.manage('PUT', path(), { ...BETA_CARD_EUR, technical_error_rate: 0 });
    const rule = await stack.manage('POST', `/projects/${m.projectId}/routing-rules`, {
      mode: 'test', name: 'beta-first', priority: 1, providers: ['demo_beta', 'demo_alpha'],
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    const declined = await pay(m.secret);
    assert.equal(declined.status, 'successful');
    assert.deepEqual(declined.attempts.map((a: any) => [a.provider_account_id, a.outcome, a.provider_code]), [
      ['pac_demo_beta', 'soft_decline', 'do_not_honor'], ['pac_demo_alpha', 'success', 'approved'],
    ]);
    assert.ok(declined.attempts[0].latency_ms >= 5, 'the added latency is waited');
    const scripted = await pay(m.secret, { test_scenario: 'success' });
    assert.deepEqual(scripted.attempts.map((a: any) => a.outcome), ['success'], 'the scenario wins over the behaviour');
    // Another currency is another segment: Beta approves it as before.
    assert.equal((await pay(m.secret, { currency: 'USD' })).attempts[0].outcome, 'success');
    // A country of its own wins over '*'.
    await stack.manage('PUT', path(), { ...BETA_CARD_EUR, country: 'de', approval_rate: 1 });
    assert.deepEqual((await pay(m.secret)).attempts.map((a: any) => a.outcome), ['success']);
    assert.equal((await pay(m.secret, { country: 'FR' })).attempts[0].outcome, 'soft_decline');
    // The other project's demo providers approve as ever (its default rule's cheapest first).
    assert.ok((await pay(other.secret)).attempts.every((a: any) => a.outcome === 'success'));
  });

  test('an outage runs from now for N minutes by the deployment\'s clock, and 0 ends it', async () => {
    await stack.manage('DELETE', `${path()}?mode=test&country=DE`);
    const down = await stack.manage('PUT', path(), { ...BETA_CARD_EUR, approval_rate: 1, outage_minutes: 5 });
    const until = Date.parse(down.body.outage_until);
    assert.ok(Math.abs(until - (clock.now().getTime() + 5 * MINUTE)) < 5_000, `five minutes from now: ${down.body.outage_until}`);
    const during = await pay(m.secret);
    assert.deepEqual(during.attempts.map((a: any) => [a.provider_account_id, a.outcome, a.failure?.category]), [
      ['pac_demo_beta', 'provider_unavailable', 'technical'], ['pac_demo_alpha', 'success', undefined],
    ]);
    clock.offsetMs += 5 * MINUTE + 1_000;
    assert.deepEqual((await pay(m.secret)).attempts.map((a: any) => a.outcome), ['success'], 'over after five minutes');
    await stack.manage('PUT', path(), { ...BETA_CARD_EUR, outage_minutes: 60 });
    assert.equal((await pay(m.secret)).attempts[0].outcome, 'provider_unavailable');
    const ended = await stack.manage('PUT', path(), { ...BETA_CARD_EUR, outage_minutes: 0 });
    assert.equal(ended.body.outage_until, null);
    assert.equal((await pay(m.secret)).attempts[0].outcome, 'success');
  });

  test('a segment\'s late successes: never received, failed over, then charged after all and returned', async () => {
    const set = await stack.manage('PUT', path(), { ...BETA_CARD_EUR, late_success_rate: 1 });
    assert.equal(set.body.late_success_rate, 1);
    const late = await pay(m.secret);
    assert.equal(late.status, 'successful');
    assert.deepEqual(late.attempts.map((a: any) => [a.provider_account_id, a.outcome]), [
      ['pac_demo_beta', 'timeout'], ['pac_demo_alpha', 'success'],
    ]);
    const timeline = async () =>
      ((await request(stack.baseUrl, 'GET', `/v1/payments/${late.id}/timeline`, { key: m.secret })).body.data as any[]).map((t) => t.type);
    const types = await eventually('the late charge returned', async () => {
      const t = await timeline();
      return t.includes('attempt.late_charge_returned') ? t : undefined;
    });
    assert.equal(types.filter((t) => t === 'attempt.late_success').length, 1, types.join(', '));
    // The ledger books the late pair at Demo Beta beside the payment at Demo Alpha.
    const rows = await eventually('the late pair booked', async () => {
      const { rows: r } = await stack.query(
        `SELECT type, provider_account_id, amount::int FROM ledger.transactions WHERE payment_id = $1 ORDER BY type, movement_id`, [late.id]);
      return r.length === 3 ? r : undefined;
    });
    assert.deepEqual(rows.map((t) => [t.type, t.provider_account_id, t.amount]), [
      ['payment', 'pac_demo_alpha', 1000], ['payment', 'pac_demo_beta', 1000], ['refund', 'pac_demo_beta', -1000],
    ]);
    // A scenario still wins, and at 0 Demo Beta answers again.
    assert.deepEqual((await pay(m.secret, { test_scenario: 'success' })).attempts.map((a: any) => a.outcome), ['success']);
    await stack.manage('PUT', path(), { ...BETA_CARD_EUR, late_success_rate: 0 });
    assert.deepEqual((await pay(m.secret)).attempts.map((a: any) => a.outcome), ['success']);
  });

  test('svc sandbox behaviour set, show and clear', async () => {
    const env = { PATH: process.env.PATH ?? '', SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken };
    const svc = (...args: string[]) => runSvc(args, env);

    // Help asked for is answered on stdout with exit 0, as for every command.
    const help = await svc('sandbox', 'behaviour', '--help');
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /svc sandbox behaviour set\|show\|clear --project PRJ_ID/);
    assert.match(help.stdout, /--outage-minutes N: unavailable from now for N minutes/);

    const set = await svc('sandbox', 'behaviour', 'set', '--project', other.projectId, '--provider', 'demo_alpha',
      '--method', 'card', '--currency', 'eur', '--approval-rate', '0.8', '--latency-ms', '20', '--outage-minutes', '10');
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /^demo_alpha {2}card EUR \*: approves 80\.0 %, 0\.0 % technical errors, 0\.0 % late successes, \+20 ms, down until \S+Z$/m);
    const shown = await svc('sandbox', 'behaviour', 'show', '--project', other.projectId, '--json');
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(JSON.parse(shown.stdout).data.map((b: any) => [b.provider, b.approval_rate, b.latency_ms]), [['demo_alpha', 0.8, 20]]);

    // Usage mistakes are the CLI's (exit 2); the API's refusals name the field (exit 1).
    const usage = await svc('sandbox', 'behaviour', 'set', '--project', other.projectId, '--provider', 'demo_alpha',
      '--method', 'card', '--currency', 'EUR', '--approval-rate', 'most');
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--approval-rate must be a number, got "most"/);
    const nothing = await svc('sandbox', 'behaviour', 'set', '--project', other.projectId, '--provider', 'demo_alpha',
      '--method', 'card', '--currency', 'EUR');
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /set needs at least one of --approval-rate/);
    const refused = await svc('sandbox', 'behaviour', 'set', '--project', other.projectId, '--provider', 'demo_alpha',
      '--method', 'card', '--currency', 'EUR', '--approval-rate', '1.5');
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^error: validation_error: approval_rate must be between 0 and 1/m);

    const cleared = await svc('sandbox', 'behaviour', 'clear', '--project', other.projectId, '--provider', 'demo_alpha');
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.match(cleared.stdout, /^demo_alpha {2}card EUR \*/m);
    const empty = await svc('sandbox', 'behaviour', 'show', '--project', other.projectId);
    assert.match(empty.stdout, /no demo behaviour set/);
    assert.equal((await stack.query('SELECT count(*)::int AS n FROM payments.demo_behaviours WHERE project_id = $1', [other.projectId])).rows[0].n, 0);
  });

  test('the dashboard sets, shows and clears its own project\'s behaviour', async () => {
    const browser = new DashboardBrowser(stack.baseUrl);
    const registered = await registerByMail(browser, stack.mailbox, {
      email: `sandbox-${Date.now().toString(36)}@example.com`, password: 'correct horse battery', merchant_name: 'Sandbox shop',
    });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const projectId = registered.body.project.id;
    const set = await browser.call('PUT', '/demo-behaviour', {
      provider: 'demo_gamma', payment_method: 'wallet', currency: 'GBP', approval_rate: 0.5, outage_minutes: 3,
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.project_id, projectId);
    assert.equal(set.body.mode, 'test');
    const bad = await browser.call('PUT', '/demo-behaviour', { provider: 'demo_gamma', payment_method: 'wallet', currency: 'GBP', latency_ms: -5 });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.param, 'latency_ms');
    const moded = await browser.call('PUT', '/demo-behaviour', { mode: 'live', provider: 'demo_gamma', payment_method: 'wallet', currency: 'GBP' });
    assert.equal(moded.status, 422, 'the session decides the mode');
    assert.equal(moded.body.error.code, 'validation_error');
    const shown = await browser.call('GET', '/demo-behaviour');
    assert.deepEqual(shown.body.data.map((b: any) => [b.provider, b.payment_method, b.currency, b.approval_rate]), [['demo_gamma', 'wallet', 'GBP', 0.5]]);
    const cleared = await browser.call('DELETE', '/demo-behaviour?provider=demo_gamma&currency=GBP');
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.equal(cleared.body.data.length, 1);
    assert.deepEqual((await browser.call('GET', '/demo-behaviour')).body.data, []);
    const audit = await stack.query(`SELECT actor FROM gateway.audit_log WHERE action = 'demo_behaviour.cleared' AND project_id = $1`, [projectId]);
    assert.equal(audit.rows.length, 1);
    assert.match(audit.rows[0].actor, /^user:/);
  });
});
