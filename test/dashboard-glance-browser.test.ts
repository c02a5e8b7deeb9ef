import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createLogger } from '../services/platform/logger.js';
import { launchChromium, registerOwner, shots, skipWithoutChromium, watch, WIDE } from './helpers/browser-page.js';
import { captureLogs } from './helpers/log-sink.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// What a merchant reads at a glance, in a real browser against the whole stack, with
// payments in two currencies made over /v1: home shows one currency at a time and never adds euros
// to pounds, transactions show their net and filter by status from a list, and the IP allow-list
// warns, naming the member's own address, before saving a list that shuts it out, and confirms
// removals. Screenshots of every page at 1280 and 390 px go to dist/test-screenshots/ (shots()
// also holds each page to the 390 px layout rules). The walk-through of registration, refunds,
// webhooks, the team and verification is dashboard-browser.test.ts.

describe('the dashboard at a glance in a real browser', { skip: skipWithoutChromium }, () => {
  const { stream } = captureLogs();
  let stack: TestStack;
  let browser: Browser;
  let page: Page;
  const seen = { requests: [] as string[], problems: [] as string[] };
  const email = `glance-${Date.now().toString(36)}@example.com`;
  let key = '';
  let paymentId = '';

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

  const nav = async (name: string) => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
  };

  test('an owner registers and pays in euros and pounds (one pound payment declined) with a test key', async () => {
    await registerOwner(page, stack, 'Glance shop', email);
    await page.getByLabel('Key name').fill('server');
    await page.getByRole('button', { name: 'Create test key' }).click();
    key = await page.getByRole('textbox', { name: 'Secret of “server”' }).inputValue();
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    const pay = async (body: object) => {
      const res = await request(stack.baseUrl, 'POST', '/v1/payments', { key, body: { payment_method: 'card', ...body } });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body;
    };
    paymentId = (await pay({ amount: 1250, currency: 'EUR', reference: 'order-1', test_scenario: 'success' })).id;
    await pay({ amount: 14052, currency: 'GBP', reference: 'order-2', test_scenario: 'success' });
    assert.equal((await pay({ amount: 999, currency: 'GBP', reference: 'order-3', test_scenario: 'hard_decline' })).status, 'failed');
  });

  test('home shows one currency at a time: headline figures, charts, failure reasons and breakdowns never mix them', async () => {
    await nav('Home');
    await page.getByRole('heading', { name: 'Success rate' }).waitFor();
    // uPlot draws in an effect after the headings render: wait for the second chart's canvas.
    await page.locator('.chart canvas').nth(1).waitFor();
    // Two currencies: one at a time, each figure naming it, euros never added to pounds.
    const currency = page.getByLabel('Currency');
    assert.deepEqual((await currency.locator('option').allInnerTexts()).sort(), ['EUR', 'GBP']);
    for (const [code, amount, count, rate, other] of [['EUR', '€12.50', 1, '100.0 %', '£'], ['GBP', '£140.52', 2, '50.0 %', '€']] as const) {
      await currency.selectOption(code);
      const byProvider = page.getByRole('region', { name: `By provider (${code})` });
      await byProvider.waitFor();
      const figures = await page.getByRole('region', { name: `Headline figures in ${code}` }).innerText();
      const escaped = amount.replace('.', '\\.');
      assert.match(figures, new RegExp(`Gross\\s+${escaped}[\\s\\S]*Payments\\s+${count}\\s[\\s\\S]*Success rate\\s+${rate}`), figures);
      // The providers' payments add up to the currency's, and its volume is the gross: nothing of the other currency.
      const rows = (await byProvider.getByRole('row').allInnerTexts()).slice(1).map((r) => r.split('\t').map((c) => c.trim()));
      assert.equal(rows.reduce((n, r) => n + Number(r[1]), 0), count, JSON.stringify(rows));
      assert.ok(rows.some((r) => r[3] === amount), JSON.stringify(rows));
      const main = await page.locator('main').innerText();
      assert.ok(!main.includes(other), `home in ${code} shows ${other}: ${main}`);
      await shots(page, `glance-home-${code.toLowerCase()}`);
    }
    // The GBP decline is a failure reason, in the warning colour.
    const reason = page.getByRole('region', { name: 'Failure reasons (GBP)' }).getByRole('listitem');
    assert.equal(await reason.count(), 1);
    assert.equal(await reason.locator('span').first().evaluate((e) => e.ownerDocument.defaultView!.getComputedStyle(e).color), 'rgb(146, 64, 14)');
  });

  test('transactions show a Net column, filter by status from a list, and keep ids on one line', async () => {
    await nav('Transactions');
    const table = page.getByRole('region', { name: 'Transactions table' });
    await table.getByRole('columnheader', { name: 'Net' }).waitFor();
    await page.getByLabel('Status').selectOption('successful');
    await page.getByLabel('Type').selectOption('payment');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/status=successful/);
    const row = table.getByRole('row').filter({ hasText: paymentId });
    await row.waitFor();
    const headers = await table.getByRole('columnheader').allInnerTexts();
    const cells = await row.getByRole('cell').allInnerTexts();
    const net = cells[headers.indexOf('Net')]!;
    const listed = await request(stack.baseUrl, 'GET', `/v1/transactions?type=payment&currency=EUR`, { key });
    const tx = listed.body.data.find((t: any) => t.payment_id === paymentId);
    assert.ok(tx, JSON.stringify(listed.body));
    assert.equal(net.trim(), `€${(tx.net_amount / 100).toFixed(2)}`);
    const idLines = await table.locator('td .mono').first()
      .evaluate((e) => e.getBoundingClientRect().height / parseFloat(e.ownerDocument.defaultView!.getComputedStyle(e).lineHeight));
    assert.ok(idLines < 1.6, `an id takes ${idLines} lines`);
    await shots(page, 'glance-transactions');
  });

  test('a payment made with a stored method shows its credentials, never their tokens; one is added, two removed, the last kept', async () => {
    const tokens = ['tok_glance_alpha_7f3e', 'tok_glance_beta_91c2'];
    const stored = await request(stack.baseUrl, 'POST', '/v1/payment-methods', {
      key, body: { type: 'card', provider_token: tokens[0], provider_code: 'demo_alpha' },
    });
    assert.equal(stored.status, 201, JSON.stringify(stored.body));
    const methodId = stored.body.id;
    const added = await request(stack.baseUrl, 'POST', `/v1/payment-methods/${methodId}/credentials`, {
      key, body: { type: 'provider_token', token: tokens[1], provider_code: 'demo_beta' },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const paid = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 700, currency: 'EUR', payment_method: { type: 'card', id: methodId }, test_scenario: 'success' },
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));

    await page.goto(`${stack.baseUrl}/dashboard/payments/${paid.body.id}`);
    const table = page.getByRole('region', { name: 'Credentials table' });
    await table.waitFor();
    const section = page.locator('section[aria-labelledby="payment-method"]');
    assert.match(await section.innerText(), new RegExp(methodId));
    const rows = async () => (await table.getByRole('row').allInnerTexts()).slice(1).map((r) => r.split('\t').map((c) => c.trim()));
    assert.deepEqual((await rows()).map((r) => [r[0], r[1]]), [['demo_alpha', 'Provider token'], ['demo_beta', 'Provider token']]);
    const html = await page.content();
    for (const t of tokens) assert.ok(!html.includes(t), `the page holds the token ${t}`);

    // The form adds the card's vault reference; its token is not shown back. A second is refused in the form.
    const form = page.getByRole('form', { name: 'Add a credential' });
    const addVault = async (token: string) => {
      await form.getByLabel('Kind').selectOption('vault_token');
      await form.getByLabel('Token').fill(token);
      await form.getByLabel('Vault').selectOption('stripe');
      await form.getByRole('button', { name: 'Add credential' }).click();
    };
    await addVault('pm_glance_vaulted_5a1d');
    await page.getByRole('status').filter({ hasText: 'usable at stripe vault' }).waitFor();
    await table.getByRole('row').filter({ hasText: 'Vault reference' }).waitFor();
    assert.deepEqual((await rows()).map((r) => r[0]), ['demo_alpha', 'demo_beta', 'stripe vault (forwarded to other providers)']);
    assert.ok(!(await page.content()).includes('pm_glance_vaulted_5a1d'), 'the vault token is not shown back');
    await addVault('pm_glance_vaulted_second');
    await form.getByRole('alert').waitFor();
    assert.match(await form.getByRole('alert').innerText(), /vault/i);
    await shots(page, 'glance-payment-method');

    // Removing asks first, then the table is read again.
    assert.equal((await rows()).length, 3);
    for (const [which, says] of [[added.body.id, /no longer be sent to demo_beta/], ['Vault reference', /no longer be sent to stripe vault/]] as const) {
      await table.getByRole('row').filter({ hasText: which }).getByRole('button', { name: 'Remove' }).click();
      const dialog = page.getByRole('dialog', { name: 'Remove this credential?' });
      assert.match(await dialog.innerText(), says);
      await dialog.getByRole('button', { name: 'Remove' }).click();
      await table.getByRole('row').filter({ hasText: which }).waitFor({ state: 'detached' });
    }
    assert.deepEqual((await rows()).map((r) => r[0]), ['demo_alpha']);
    const listed = await request(stack.baseUrl, 'GET', `/v1/payment-methods/${methodId}/credentials`, { key });
    assert.deepEqual(listed.body.data.map((c: { provider_code: string }) => c.provider_code), ['demo_alpha']);

    // The last one stays: the API's refusal is shown in the dialog, which stays open.
    await table.getByRole('button', { name: 'Remove' }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove this credential?' });
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await confirm.getByRole('alert').waitFor();
    assert.match(await confirm.getByRole('alert').innerText(), /only credential/);
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await rows()).length, 1);
  });

  test('an allow-list that shuts out the member\'s own address is saved after a warning naming it; removals are confirmed', async () => {
    await nav('IP allow-list');
    const entry = page.getByLabel('Address or CIDR range');
    await entry.fill('not-an-ip');
    await page.getByRole('button', { name: 'Add' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: 'not-an-ip' });
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /“not-an-ip” is not an IP address or range\. Enter an exact address such as 203\.0\.113\.7/);
    assert.doesNotMatch(await refusal.innerText(), /entries\.0/);

    await entry.fill('203.0.113.7');
    await page.getByRole('button', { name: 'Add' }).click();
    const warning = page.getByRole('dialog', { name: 'Add 203.0.113.7?' });
    await warning.waitFor();
    assert.match(await warning.innerText(), /Your own address, 127\.0\.0\.1, is not on this list/);
    await shots(page, 'glance-allow-list-warning');
    await warning.getByRole('button', { name: 'Add anyway' }).click();
    await page.getByText('203.0.113.7 added.').waitFor();
    await page.getByRole('list', { name: 'Allowed addresses' }).getByText('203.0.113.7').waitFor();
    await shots(page, 'glance-allow-list');
    const refused = await request(stack.baseUrl, 'GET', '/v1/payments', { key });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'ip_not_allowed');

    // Adding the member's own address asks nothing; removing an entry always does.
    await entry.fill('127.0.0.0/8');
    await page.getByRole('button', { name: 'Add' }).click();
    await page.getByText('127.0.0.0/8 added.').waitFor();
    assert.equal((await request(stack.baseUrl, 'GET', '/v1/payments', { key })).status, 200);
    await page.getByRole('button', { name: 'Remove 127.0.0.0/8' }).click();
    const removal = page.getByRole('dialog', { name: 'Remove 127.0.0.0/8?' });
    assert.match(await removal.innerText(), /Requests from 127\.0\.0\.0\/8 are refused from now on[\s\S]*Your own address, 127\.0\.0\.1, is not on this list/);
    await removal.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Remove 203.0.113.7' }).click();
    await page.getByRole('dialog', { name: 'Remove 203.0.113.7?' }).getByRole('button', { name: 'Remove' }).click();
    await page.getByText('203.0.113.7 removed.').waitFor();
    // The list is read again after the notice: the row leaves once it has.
    await page.getByRole('button', { name: 'Remove 203.0.113.7' }).waitFor({ state: 'detached' });
    assert.deepEqual(await page.getByRole('list', { name: 'Allowed addresses' }).locator('.mono').allInnerTexts(), ['127.0.0.0/8']);
  });

  test('every page loaded from 127.0.0.1 only, with no CSP violation or script error', () => {
    assert.deepEqual(seen.requests.filter((url) => !url.startsWith(`${stack.baseUrl}/`)), []);
    assert.deepEqual(seen.problems, []);
  });
});
