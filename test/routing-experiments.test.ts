import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { armOf } from '../services/routing-risk/ab-arms.js';
import { differenceInterval, wilsonInterval } from '../services/routing-risk/acceptance-interval.js';
import { eventually, rowsWritten } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { runSvc } from './helpers/svc-cli.js';

// Real JetStream: CI's, or one of the file's own without NATS_URL.
const { url: natsUrl } = await jetStreamForFile();

// Routing's A/B arms through the whole stack: a rule whose variant ranks a sticky half of its
// payments by another strategy, the arm stored with each decision, the report's figures against
// the payments sent (outcomes arrive through attempt.settled), a change of strategy starting a new
// experiment period (audited), and bad updates refused by name. Real Postgres, NATS and HTTP.

const VARIANT = { share: 0.5, strategy: { type: 'volume_split', weights: { demo_beta: 100 } } };
// The scenario plays on the first attempt: success approves there, failover approves on the second,
// hard_decline fails the payment (services/connectors/scenarios.ts).
const SCENARIOS = ['success', 'success', 'failover', 'hard_decline'];

interface Tally {
  payments: number;
  approved: number;
  first_attempt_approved: number;
  /** Attempts beyond the first, and the approved amount's fees (minor units) at the demo accounts' rates. */
  extra: number;
  fees: number;
  amount: number;
}

/** The demo accounts' fixed fee and rate (migration 0001). */
const DEMO_FEES: Record<string, [number, number]> = { pac_demo_alpha: [30, 290], pac_demo_beta: [20, 250], pac_demo_gamma: [10, 300] };

describe('A/B arms of a routing rule and their report', () => {
  let stack: TestStack;
  let m: { merchantId: string; projectId: string; secret: string };
  let ruleId: string;
  const rulePath = () => `/projects/${m.projectId}/routing-rules/${ruleId}`;
  const report = () => stack.manage('GET', `${rulePath()}/report?mode=test`);

  before(async () => {
    stack = await startTestStack({ natsUrl });
    m = await stack.newMerchantKey('test');
    const rule = await stack.manage('POST', `/projects/${m.projectId}/routing-rules`, {
      mode: 'test', name: 'eur-ab', priority: 1, currencies: ['EUR'], providers: ['demo_alpha', 'demo_beta'], variant: VARIANT,
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    assert.deepEqual(rule.body.variant, VARIANT);
    assert.equal(rule.body.experiment_since, rule.body.created_at);
    ruleId = rule.body.id;
  });
  after(async () => {
    await stack?.close();
  });

  const pay = async (scenario: string) => {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key: m.secret, body: { amount: 2000, currency: 'EUR', payment_method: 'card', test_scenario: scenario },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };

  /**
   * Sends payments and counts, per arm the payment's id draws, what the report should show: at
   * least `n`, and more (up to 4 × n) until the control arm holds a failed one, which the draw of
   * ids leaves to chance. Returns the tallies and how many were sent.
   */
  async function sendPayments(n: number) {
    const expected: Record<string, Tally> = {
      control: { payments: 0, approved: 0, first_attempt_approved: 0, extra: 0, fees: 0, amount: 0 },
      variant: { payments: 0, approved: 0, first_attempt_approved: 0, extra: 0, fees: 0, amount: 0 },
    };
    let sent = 0;
    for (let i = 0; i < 4 * n && (i < n || expected.control!.approved === expected.control!.payments); i++, sent++) {
      const p = await pay(SCENARIOS[i % SCENARIOS.length]!);
      const arm = armOf(VARIANT as any, p.id);
      // The control arm keeps the rule's order (Alpha first); the variant's split sends all to Beta first.
      assert.equal(p.attempts[0].provider_account_id, arm === 'variant' ? 'pac_demo_beta' : 'pac_demo_alpha', `${p.id} in ${arm}`);
      const t = expected[arm]!;
      t.payments++;
      if (p.status === 'successful') t.approved++;
      if (p.attempts[0].status === 'succeeded') t.first_attempt_approved++;
      t.extra += p.attempts.length - 1;
      for (const a of p.attempts.filter((x: any) => x.status === 'succeeded')) {
        const [fixed, bps] = DEMO_FEES[a.provider_account_id]!;
        t.fees += fixed + (p.amount * bps) / 10_000;
        t.amount += p.amount;
      }
    }
    return { expected, sent };
  }

  test('each payment is ranked by its sticky arm, and the report counts them per arm with Wilson intervals', async () => {
    const { expected, sent } = await sendPayments(24);
    assert.ok(expected.control!.payments > 0 && expected.variant!.payments > 0, JSON.stringify(expected));
    assert.ok(expected.control!.approved < expected.control!.payments, 'some payments failed');

    const rows = await rowsWritten(`the ${sent} decisions`, () => stack.query(
      'SELECT payment_id, arm, strategy FROM routing_risk.routing_decisions WHERE rule_id = $1', [ruleId]), sent);
    assert.equal(rows.length, sent);
    for (const r of rows) {
      assert.equal(r.arm, armOf(VARIANT as any, r.payment_id));
      assert.equal(r.strategy, r.arm === 'variant' ? 'volume_split' : 'priority');
    }

    // Outcomes reach routing-risk through attempt.settled: wait until every payment's are counted.
    const body = await eventually('the report to count every outcome', async () => {
      const res = await report();
      assert.equal(res.status, 200, JSON.stringify(res.body));
      // Failover attempts' outcomes may arrive after their payments' decisions: wait for those too.
      const counted = res.body.arms.map((a: any) => ({
        payments: a.payments, approved: a.approved, first_attempt_approved: a.first_attempt_approved,
        extra: a.failover.extra_attempts_per_payment,
      }));
      const want = [expected.control!, expected.variant!].map((t) => ({
        payments: t.payments, approved: t.approved, first_attempt_approved: t.first_attempt_approved, extra: t.extra / t.payments,
      }));
      return JSON.stringify(counted) === JSON.stringify(want) ? res.body : undefined;
    });
    assert.equal(body.object, 'routing_rule_report');
    assert.equal(body.rule.id, ruleId);
    assert.deepEqual(body.arms.map((a: any) => [a.arm, a.share, a.strategy]),
      [['control', 0.5, { type: 'priority' }], ['variant', 0.5, VARIANT.strategy]]);
    for (const a of body.arms) {
      assert.equal(a.acceptance, a.approved / a.payments);
      assert.deepEqual(a.interval, wilsonInterval(a.approved, a.payments));
      assert.ok(a.interval.low <= a.acceptance && a.acceptance <= a.interval.high);
      // The headline: first-attempt acceptance with its own interval, and what failover cost.
      assert.equal(a.first_attempt_acceptance, a.first_attempt_approved / a.payments);
      assert.deepEqual(a.first_attempt_interval, wilsonInterval(a.first_attempt_approved, a.payments));
      const t = expected[a.arm]!;
      assert.equal(a.failover.extra_attempts_per_payment, t.extra / t.payments, `${a.arm}: extra attempts`);
      assert.ok(Math.abs(a.failover.fee_bps - (t.fees / t.amount) * 10_000) < 1e-6, `${a.arm}: fees ${a.failover.fee_bps}`);
      assert.ok(a.failover.latency_ms_per_payment >= 0);
    }
    assert.ok(expected.control!.extra > 0, 'the failover scenario fails over');
    const [c, v] = body.arms;
    const d = differenceInterval(v.approved, v.payments, c.approved, c.payments);
    assert.deepEqual(body.difference, { estimate: d.difference, low: d.low, high: d.high });
    const f = differenceInterval(v.first_attempt_approved, v.payments, c.first_attempt_approved, c.payments);
    assert.deepEqual(body.first_attempt_difference, { estimate: f.difference, low: f.low, high: f.high });
  });

  test('changing the strategy starts a new experiment period, audited with what changed', async () => {
    const before = (await stack.manage('GET', `/projects/${m.projectId}/routing-rules?mode=test`)).body.data[0];
    const res = await stack.manage('PATCH', `${rulePath()}?mode=test`, { strategy: { type: 'cheapest' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.strategy, res.body.variant], [{ type: 'cheapest' }, VARIANT]);
    assert.ok(res.body.experiment_since > before.experiment_since, 'a new period');

    const fresh = (await report()).body;
    assert.equal(fresh.since, res.body.experiment_since);
    assert.deepEqual(fresh.arms.map((a: any) => [a.arm, a.payments, a.acceptance, a.interval]),
      [['control', 0, null, null], ['variant', 0, null, null]]);
    assert.equal(fresh.difference, null);

    // A priority change alone keeps the period.
    const moved = await stack.manage('PATCH', `${rulePath()}?mode=test`, { priority: 7 });
    assert.deepEqual([moved.body.priority, moved.body.experiment_since], [7, res.body.experiment_since]);

    const audit = await stack.query(
      `SELECT action, data FROM gateway.audit_log WHERE target_id = $1 AND action = 'routing_rule.updated' ORDER BY created_at`, [ruleId]);
    assert.deepEqual(audit.rows.map((r) => r.data.changed), [['strategy'], ['priority']]);
    assert.deepEqual(audit.rows[0].data.rule.strategy, { type: 'cheapest' });

    // What the rule matches may change too: a new period, since its arms would compare other payments.
    const narrowed = await stack.manage('PATCH', `${rulePath()}?mode=test`, { countries: ['de'], max_amount: 100_000 });
    assert.equal(narrowed.status, 200, JSON.stringify(narrowed.body));
    assert.deepEqual([narrowed.body.countries, narrowed.body.max_amount, narrowed.body.currencies], [['DE'], 100_000, before.currencies]);
    assert.ok(narrowed.body.experiment_since > res.body.experiment_since, 'a new period');
    const widened = await stack.manage('PATCH', `${rulePath()}?mode=test`, { countries: [], max_amount: null });
    assert.deepEqual([widened.body.countries, widened.body.max_amount], [[], null]);
    const changes = await stack.query(
      `SELECT data FROM gateway.audit_log WHERE target_id = $1 AND action = 'routing_rule.updated' ORDER BY created_at`, [ruleId]);
    assert.deepEqual(changes.rows.slice(2).map((r) => r.data.changed), [['countries', 'max_amount'], ['countries', 'max_amount']]);

    // Removing the variant: the report shows the control arm alone, with every payment.
    const removed = await stack.manage('PATCH', `${rulePath()}?mode=test`, { variant: null });
    assert.equal(removed.body.variant, null);
    const paid = await pay('success');
    const alone = await eventually('the payment in the report', async () => {
      const body = (await report()).body;
      return body.arms[0].approved === 1 ? body : undefined;
    });
    assert.deepEqual(alone.arms.map((a: any) => [a.arm, a.share, a.payments]), [['control', 1, 1]]);
    assert.equal(paid.route.rule, 'eur-ab');
  });

  test('bad updates and reports are 4xx in the error envelope and change nothing', async () => {
    const stored = async () => (await stack.manage('GET', `/projects/${m.projectId}/routing-rules?mode=test`)).body.data[0];
    const was = await stored();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ variant: { share: 0.9, strategy: { type: 'cheapest' } } }, 'variant.share'],
      [{ variant: { share: 0, strategy: { type: 'cheapest' } } }, 'variant.share'],
      [{ variant: { share: 0.1, strategy: { type: 'volume_split', weights: { demo_alpha: 50 } } } }, 'variant.strategy.weights'],
      [{ variant: { share: 0.1, strategy: { type: 'bandit' } } }, 'variant.strategy.type'],
      [{ variant: { share: 0.1 } }, 'variant.strategy'],
      [{ variant: 'half' }, 'variant'],
      [{ strategy: 'fast' }, 'strategy'],
      [{ strategy: { type: 'success_rate', settings: { explorationShare: 0.5 } } }, 'strategy.settings.explorationShare'],
      [{ priority: '2' }, 'priority'],
      [{ providers: ['no_such_provider'] }, 'providers'],
      [{ currencies: ['euro'] }, 'currencies'],
      [{ payment_method_types: ['cheque'] }, 'payment_method_types'],
      [{ min_amount: 1.5 }, 'min_amount'],
      [{ min_amount: 5000, max_amount: 100 }, 'max_amount'],
      [{ colour: 'blue' }, 'colour'],
    ];
    for (const [body, param] of cases) {
      const res = await stack.manage('PATCH', `${rulePath()}?mode=test`, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.error.code, 'validation_error');
      assert.equal(res.body.error.param, param, JSON.stringify(body));
      assert.match(res.body.request_id, /^req_/);
    }
    const empty = await stack.manage('PATCH', `${rulePath()}?mode=test`, {});
    assert.equal(empty.status, 422);
    assert.deepEqual(await stored(), was, 'nothing changed');

    const created = await stack.manage('POST', `/projects/${m.projectId}/routing-rules`, {
      mode: 'test', name: 'too-much', priority: 2, providers: ['demo_alpha'], variant: { share: 0.75, strategy: { type: 'cheapest' } },
    });
    assert.equal(created.status, 422);
    assert.equal(created.body.error.param, 'variant.share');

    for (const res of [
      await stack.manage('PATCH', `/projects/${m.projectId}/routing-rules/rtr_nope?mode=test`, { priority: 1 }),
      await stack.manage('GET', `/projects/${m.projectId}/routing-rules/rtr_nope/report?mode=test`),
      await stack.manage('GET', `${rulePath()}/report?mode=live`),
      await stack.manage('GET', `/projects/prj_nope/routing-rules/${ruleId}/report?mode=test`),
    ]) {
      assert.equal(res.status, 404, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'resource_not_found');
    }
    const noMode = await stack.manage('GET', `${rulePath()}/report`);
    assert.equal(noMode.status, 422);
    assert.equal(noMode.body.error.param, 'mode');
  });

  test('svc routing-rule update and svc routing report', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, SVC_URL: stack.baseUrl, SVC_OPERATOR_TOKEN: stack.operatorToken };
    delete env.DATA_DIR;
    const svc = (args: string[]) => runSvc(args, env, process.cwd());
    const scope = ['--project', m.projectId, '--mode', 'test'];
    const updated = await svc(['routing-rule', 'update', ruleId, ...scope,
      '--strategy', 'null', '--variant', '{"share":0.25,"strategy":{"type":"cheapest"}}']);
    assert.equal(updated.code, 0, updated.stderr);
    assert.match(updated.stdout, new RegExp(`^updated ${ruleId}\\s+test\\s+#7\\s+eur-ab: currency EUR -> demo_alpha, demo_beta, variant 25 % by cheapest`));

    const paid = await pay('success');
    const arm = armOf({ share: 0.25, strategy: { type: 'cheapest' } }, paid.id);
    const shown = await eventually('the CLI report to count the payment', async () => {
      const run = await svc(['routing', 'report', ...scope, '--rule', ruleId]);
      assert.equal(run.code, 0, run.stderr);
      return run.stdout.includes('approved 1 ') ? run.stdout : undefined;
    });
    const lines = shown.trim().split('\n');
    assert.match(lines[0]!, /eur-ab.*\(since \d{4}-/);
    assert.match(lines[1]!, /^ {2}control\s+75 %\s+priority\s+n=\d/);
    assert.match(lines[2]!, /^ {2}variant\s+25 %\s+cheapest\s+n=\d/);
    assert.match(shown, new RegExp(`${arm}\\s+\\d+ %\\s+\\w+\\s+n=1  first attempt 1 100\\.0 % \\[\\d+\\.\\d %, 100\\.0 %\\]  approved 1 100\\.0 % \\[\\d+\\.\\d %, 100\\.0 %\\]  failover \\+0\\.00 attempts/payment, fees \\d+ bps, \\d+ ms/payment`));

    const all = await svc(['routing', 'report', ...scope, '--json']);
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(JSON.parse(all.stdout).data.map((r: any) => r.rule.id), [ruleId]);

    const bad = await svc(['routing-rule', 'update', ruleId, ...scope, '--variant', 'half']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--variant must be a JSON object/);
    const nothing = await svc(['routing-rule', 'update', ruleId, ...scope]);
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /give at least one of --strategy/);
    const refused = await svc(['routing-rule', 'update', ruleId, ...scope, '--variant', '{"share":0.9,"strategy":{"type":"cheapest"}}']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /variant\.share must be a number from 0\.01 to 0\.5/);

    // What the rule matches, changed and widened again.
    const narrowed = await svc(['routing-rule', 'update', ruleId, ...scope, '--countries', 'de,fr', '--max-amount', '90000']);
    assert.equal(narrowed.code, 0, narrowed.stderr);
    assert.match(narrowed.stdout, /eur-ab: currency EUR, country DE\|FR, amount 0\.\.90000 -> /);
    const widened = await svc(['routing-rule', 'update', ruleId, ...scope, '--countries', 'any', '--max-amount', 'none']);
    assert.equal(widened.code, 0, widened.stderr);
    assert.match(widened.stdout, /eur-ab: currency EUR -> /);
    const badBound = await svc(['routing-rule', 'update', ruleId, ...scope, '--min-amount', 'lots']);
    assert.equal(badBound.code, 2);
    assert.match(badBound.stderr, /--min-amount must be a whole number or none/);
  });

  test('a variant with a learning strategy reads the outcome history, though the rule\'s own strategy does not learn', async () => {
    const learning = { share: 0.5, strategy: { type: 'success_rate', settings: { minSample: 1, explorationShare: 0 } } };
    // No exploration: a payment drawing the 4 % exploration share would lead with the unknown account.
    const res = await stack.manage('PATCH', `${rulePath()}?mode=test`, { variant: learning });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.strategy, null, 'the control arm keeps the rule\'s order');
    // Minutes are counted only while a rule of the scope learns (learning-scopes.ts): from this change
    // on. One payment's outcome counted, then pay until one payment draws the variant.
    const first = await pay('success');
    await eventually('the first outcome counted', async () => {
      const { rows } = await stack.query(
        `SELECT 1 FROM routing_risk.attempt_outcomes o JOIN routing_risk.outcome_minutes m
           ON m.project_id = o.project_id AND m.provider_account_id = o.provider_account_id WHERE o.payment_id = $1`, [first.id]);
      return rows.length > 0 ? true : undefined;
    });
    let paid: any;
    for (let i = 0; i < 20 && !paid; i++) {
      const p = await pay('success');
      if (armOf(learning as any, p.id) === 'variant') paid = p;
    }
    assert.ok(paid, 'a payment in the variant arm');
    const rows = await rowsWritten('the decision', () => stack.query('SELECT arm, strategy, reason FROM routing_risk.routing_decisions WHERE id = $1',
      [paid.route.routing_decision_id]));
    assert.deepEqual([rows[0].arm, rows[0].strategy], ['variant', 'success_rate']);
    assert.match(rows[0].reason, /first: \d+\.\d % over \d+ recent EUR card payments/);
  });
});
