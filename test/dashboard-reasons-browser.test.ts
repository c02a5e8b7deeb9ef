import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createLogger } from '../services/platform/logger.js';
import { eventually } from './helpers/eventually.js';
import { launchChromium, parseCsv, registerOwner, shots, skipWithoutChromium, watch, WIDE } from './helpers/browser-page.js';
import { captureLogs } from './helpers/log-sink.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// Every reason shown, in a real browser against the whole stack: a sandbox payment declined as a
// stolen card says so in the API (failure.decline_reason), in its payment.failed event, on its
// timeline, in the payments CSV and on Home's failure chart; and an outage of a demo provider (the
// sandbox's segment setting) shows on Home's provider health while it happens, though every
// payment still succeeds at the next provider.

describe('decline reasons and provider health in a real browser', { skip: skipWithoutChromium }, () => {
  const { stream } = captureLogs();
  let stack: TestStack;
  let browser: Browser;
  let page: Page;
  const seen = { requests: [] as string[], problems: [] as string[] };
  const email = `reasons-${Date.now().toString(36)}@example.com`;
  let key = '';
  let projectId = '';
  let declinedId = '';

  before(async () => {
    stack = await startTestStack({ logger: createLogger('test', 'info', stream) });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: WIDE });
    watch(page, seen);
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  const pay = async (body: object) => {
    const res = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 1500, currency: 'EUR', payment_method: 'card', country: 'DE', ...body },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body;
  };
  const home = async () => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Home', exact: true }).click();
    await page.getByRole('heading', { name: 'Provider health' }).waitFor();
  };

  test('an owner registers and takes a test key', async () => {
    await registerOwner(page, stack, 'Reasons shop', email);
    await page.getByLabel('Key name').fill('server');
    await page.getByRole('button', { name: 'Create test key' }).click();
    key = await page.getByRole('textbox', { name: 'Secret of “server”' }).inputValue();
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    projectId = (await request(stack.baseUrl, 'GET', '/v1/me', { key })).body.project.id;
  });

  test('a payment declined as a stolen card says so in the API, its event, its timeline and the CSV', async () => {
    const declined = await pay({ test_scenario: 'hard_decline', reference: 'stolen-1' });
    declinedId = declined.id;
    assert.equal(declined.status, 'failed');
    assert.deepEqual([declined.failure.code, declined.failure.category, declined.failure.decline_reason], ['hard_decline', 'hard', 'stolen_card']);
    assert.match(declined.failure.message, /reported stolen/);
    assert.equal(declined.attempts[0].failure.decline_reason, 'stolen_card');
    // A technical failure is no decline: it has no decline reason.
    const down = await pay({ test_scenario: 'all_fail' });
    assert.deepEqual([down.failure.category, down.failure.decline_reason], ['technical', null]);
    // A soft decline from every provider: the issuer's do_not_honor.
    assert.equal((await pay({ test_scenario: 'soft_decline' })).failure.decline_reason, 'do_not_honor');

    const event: any = await eventually('the payment.failed event of the declined payment', async () => {
      const events = await request(stack.baseUrl, 'GET', '/v1/events?type=payment.failed', { key });
      return events.body.data.find((e: any) => e.data.object.id === declinedId);
    });
    assert.equal(event.data.object.failure.decline_reason, 'stolen_card', 'webhook payloads carry the resource shape');

    const timeline = await request(stack.baseUrl, 'GET', `/v1/payments/${declinedId}/timeline`, { key });
    const failedEntry = timeline.body.data.find((e: any) => e.type === 'payment.failed');
    assert.match(failedEntry.description, /declined as stolen_card \(the card is reported stolen\); nobody was charged/);
    assert.equal(failedEntry.data.decline_reason, 'stolen_card');

    await page.goto(`${stack.baseUrl}/dashboard/payments/${declinedId}`);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    assert.match(await page.locator('ol.timeline').innerText(), /declined as stolen_card/);
    assert.match(await page.locator('section[aria-labelledby="route"]').innerText(), /Decline reason\s+stolen_card/);

    const csv = parseCsv(String(await page.evaluate("fetch('/dashboard/api/payments/export.csv').then((r) => r.text())")));
    const row = csv.find((r) => r.id === declinedId);
    assert.deepEqual([row?.failure_code, row?.decline_reason], ['hard_decline', 'stolen_card']);
  });

  test('Home\'s failure chart names the decline reasons, not only hard_decline', async () => {
    await home();
    const reasons = page.getByRole('region', { name: 'Failure reasons (EUR)' });
    const items = (await reasons.getByRole('listitem').allInnerTexts()).map((t) => t.split(/\s+/)[0]);
    assert.deepEqual(items.sort(), ['do_not_honor', 'provider_error', 'stolen_card'], items.join(', '));
    await shots(page, 'reasons-home-failures');
  });

  test('an outage of the first demo provider shows on Home while it happens, though its payments succeed at the next', async () => {
    // The provider routing tries first for these payments is the one taken down.
    const probe = await pay({ reference: 'before-outage' });
    const first = probe.route.provider;
    const set = await stack.manage('PUT', `/projects/${projectId}/demo-behaviour`, {
      mode: 'test', provider: first.code, payment_method: 'card', currency: 'EUR', outage_minutes: 10,
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    let next = '';
    for (let i = 0; i < 6; i++) {
      const p = await pay({ reference: `outage-${i}` });
      assert.equal(p.status, 'successful');
      assert.deepEqual(p.attempts.map((a: any) => [a.provider_name, a.outcome]), [[first.name, 'provider_unavailable'], [p.route.provider.name, 'success']]);
      next = p.route.provider.name;
    }
    await page.reload();
    await home();
    const health = page.getByRole('region', { name: 'Provider health' });
    const rows = (await health.getByRole('row').allInnerTexts()).slice(1).map((r) => r.split('\t').map((c) => c.trim()));
    const down = rows.find((r) => r[0] === first.name);
    assert.ok(down, JSON.stringify(rows));
    // Ten payments tried it first: three scenarios, the probe and six in the outage. It answered three
    // (the stolen card, do_not_honor, the probe's approval); seven attempts failed technically (the
    // outage's six and all_fail's), and eight moved on to another provider (those and the soft decline).
    assert.deepEqual(down.slice(1), ['failing', '100.0 % (10)', '33.3 % of 3', '7 of 10', '8']);
    assert.equal(rows.find((r) => r[0] === next)?.[1], 'healthy', JSON.stringify(rows));
    // One technical failure in two attempts (all_fail's) is no outage.
    assert.deepEqual(rows.filter((r) => r[1] === 'failing').map((r) => r[0]), [first.name], JSON.stringify(rows));
    await shots(page, 'reasons-home-outage');
    assert.deepEqual(seen.problems, []);
  });
});
