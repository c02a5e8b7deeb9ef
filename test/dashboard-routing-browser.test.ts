import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { armOf } from '../services/routing-risk/ab-arms.js';
import { registerOwner, shots, skipWithoutChromium, startStackAndBrowser, type StackInBrowser } from './helpers/browser-page.js';
import { eventually } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// Real JetStream: CI's, or one of the file's own without NATS_URL (outcomes reach routing-risk through it).
const { url: natsUrl } = await jetStreamForFile();

// Settings > Routing in a real browser against the whole stack: a rule with an A/B variant made
// through the management API, sandbox payments over /v1, and the page showing both arms with their
// payments and intervals; the rule's form refuses a bad variant beside its share and saves a new strategy.
// Screenshots at 1280 and 390 px in dist/test-screenshots/.

const VARIANT = { share: 0.5, strategy: { type: 'volume_split', weights: { demo_beta: 100 } } };
const SCENARIOS = ['success', 'success', 'hard_decline'];

describe('the routing page in a real browser', { skip: skipWithoutChromium }, () => {
  let ui: StackInBrowser<TestStack>;

  before(async () => {
    ui = await startStackAndBrowser(() => startTestStack({ natsUrl }));
  });
  after(() => ui?.close());

  test('the page shows both arms with n and an interval, and the form says what is wrong in words', async () => {
    const { stack, page, seen } = ui;
    await registerOwner(page, stack, 'Routing shop', `routing-${Date.now().toString(36)}@example.com`);
    await page.getByLabel('Key name').fill('checkout');
    await page.getByRole('button', { name: 'Create test key' }).click();
    const key = await page.getByRole('textbox', { name: 'Secret of “checkout”' }).inputValue();
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    const projectId = (await request(stack.baseUrl, 'GET', '/v1/me', { key })).body.project.id;

    const rule = await stack.manage('POST', `/projects/${projectId}/routing-rules`, {
      mode: 'test', name: 'eur-ab', priority: 1, currencies: ['EUR'], providers: ['demo_alpha', 'demo_beta'], variant: VARIANT,
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    const n = { control: 0, variant: 0 };
    for (let i = 0; i < 12; i++) {
      const paid = await request(stack.baseUrl, 'POST', '/v1/payments', {
        key, body: { amount: 1500, currency: 'EUR', payment_method: 'card', test_scenario: SCENARIOS[i % SCENARIOS.length] },
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      n[armOf(VARIANT as any, paid.body.id)]++;
    }
    assert.ok(n.control > 0 && n.variant > 0, JSON.stringify(n));
    // Every payment's outcome counted (8 approved of 12), so the page shows settled figures.
    await eventually('the outcomes in the report', async () => {
      const report = (await stack.manage('GET', `/projects/${projectId}/routing-rules/${rule.body.id}/report?mode=test`)).body;
      return report.arms.reduce((sum: number, a: any) => sum + a.approved, 0) === 8 ? report : undefined;
    });

    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Routing', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Routing' }).waitFor();
    const arms = page.getByRole('region', { name: 'Arms of eur-ab' });
    await arms.waitFor();
    for (const arm of ['control', 'variant'] as const) {
      const row = arms.getByRole('row', { name: new RegExp(`^${arm}\\b`) });
      const cells = await row.getByRole('cell').allInnerTexts();
      // Share, strategy, payments (n), first attempt, its acceptance and interval, approved, acceptance, interval, failover's cost.
      assert.equal(cells[0], '50.0 %');
      assert.equal(cells[1], arm === 'control' ? 'priority' : 'volume split');
      assert.equal(cells[2], String(n[arm]), `${arm}: n`);
      assert.match(cells[4]!, /^\d+\.\d %$/, `${arm}: first-attempt acceptance`);
      assert.match(cells[5]!, /^\d+\.\d % to \d+\.\d %$/, `${arm}: its interval`);
      assert.match(cells[7]!, /^\d+\.\d %$/, `${arm}: acceptance`);
      assert.match(cells[8]!, /^\d+\.\d % to \d+\.\d %$/, `${arm}: interval`);
      assert.match(cells[9]!, /^\d+\.\d\d$/, `${arm}: extra attempts per payment`);
    }
    await page.getByText(/^First attempt, variant minus control: [+−]\d+\.\d points \(95 % interval [+−]\d+\.\d points to [+−]\d+\.\d points\)\.$/).waitFor();
    await page.getByText(/^Variant minus control: [+−]\d+\.\d points \(95 % interval [+−]\d+\.\d points to [+−]\d+\.\d points\)\.$/).waitFor();
    await shots(page, 'dashboard-routing');

    const form = page.getByRole('form', { name: 'Change eur-ab' });
    const share = form.getByLabel('Variant share % of eur-ab');
    const save = form.getByRole('button', { name: 'Save eur-ab' });
    // The variant as the form shows it: its share and its strategy's fields, no JSON.
    assert.equal(await share.inputValue(), '50');
    assert.equal(await form.getByLabel('eur-ab variant: strategy').inputValue(), 'volume_split');
    assert.equal(await form.getByLabel('eur-ab variant: weights (volume split)').inputValue(), 'demo_beta=100');
    await share.fill('90');
    await save.click();
    await form.locator('.field', { has: page.getByLabel('Variant share % of eur-ab') }).getByRole('alert')
      .filter({ hasText: 'variant.share must be a number from 0.01 to 0.5' }).waitFor();

    await share.fill('50');
    await form.getByLabel('eur-ab: strategy').selectOption('cheapest');
    await save.click();
    await page.getByText('eur-ab saved: strategy changed, a new experiment period begins.').waitFor();
    // The new period counts no payment yet.
    await arms.getByRole('row', { name: /^control\b/ }).getByRole('cell', { name: 'cheapest', exact: true }).waitFor();
    assert.equal((await arms.getByRole('row', { name: /^control\b/ }).getByRole('cell').allInnerTexts())[2], '0');
    const stored = (await stack.manage('GET', `/projects/${projectId}/routing-rules?mode=test`)).body.data[0];
    assert.deepEqual([stored.strategy, stored.variant], [{ type: 'cheapest' }, VARIANT]);
    assert.deepEqual(seen.problems, []);
  });
});
