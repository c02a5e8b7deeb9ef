import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { registerOwner, shots, skipWithoutChromium, startStackAndBrowser, type StackInBrowser } from './helpers/browser-page.js';
import { eventually } from './helpers/eventually.js';
import { jetStreamForFile } from './helpers/nats-server.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { startReceiver, type Receiver } from './webhooks-support.js';

// Real JetStream: CI's, or one of the file's own without NATS_URL.
const { url: natsUrl } = await jetStreamForFile();

// What a merchant does in the dashboard instead of curl, in a real browser against the whole stack
// on real Postgres and NATS: a test payment made with the form appears in the list with its
// customer and description (the list fitting 1280 px); a refused API call's request-log entry says
// its error code and message and holds no secret or card number; a failing endpoint's delivery
// says when its next automatic attempt is; a routing rule created, changed and deleted with the
// form is what the API returns, the server's refusal shown beside the field it names.

/** Whether a named table is wider than its box (a table that fits scrolls nothing). */
const overflowOf = (page: Page, name: string) => page.getByRole('region', { name }).evaluate((box) => box.scrollWidth - box.clientWidth);

describe('the merchant tools in the dashboard', { skip: skipWithoutChromium }, () => {
  let ui: StackInBrowser<TestStack>;
  let receiver: Receiver;
  let key: string;
  let projectId: string;

  before(async () => {
    ui = await startStackAndBrowser(() => startTestStack({ natsUrl }));
    receiver = await startReceiver(500);
    const { stack, page } = ui;
    await registerOwner(page, stack, 'Tools shop', `tools-${Date.now().toString(36)}@example.com`);
    await page.getByLabel('Key name').fill('checkout');
    await page.getByRole('button', { name: 'Create test key' }).click();
    key = await page.getByRole('textbox', { name: 'Secret of “checkout”' }).inputValue();
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    projectId = (await request(stack.baseUrl, 'GET', '/v1/me', { key })).body.project.id;
  });
  after(async () => {
    await receiver?.close();
    await ui?.close();
  });

  test('the test-payment form makes one payment, listed with its customer and description', async () => {
    const { stack, page } = ui;
    await page.goto(`${stack.baseUrl}/dashboard/payments`);
    const form = page.getByRole('form', { name: 'Test payment' });
    await form.getByLabel('Amount').fill('0');
    await form.getByRole('button', { name: 'Make test payment' }).click();
    // The server's refusal, beside the field it names.
    await form.locator('.field', { has: page.getByLabel('Amount') }).getByRole('alert').waitFor();

    await form.getByLabel('Amount').fill('12.50');
    await form.getByLabel('Scenario').selectOption('success');
    await form.getByLabel('Customer email').fill('ada@example.com');
    await form.getByLabel('Customer name').fill('Ada Lovelace');
    await form.getByLabel('Description').fill('Order 1042');
    await form.getByRole('button', { name: 'Make test payment' }).click();
    const made = form.getByRole('status');
    await made.getByText('successful').waitFor();
    assert.match(await made.innerText(), /€12\.50 test payment/);

    const listed = (await request(stack.baseUrl, 'GET', '/v1/payments', { key })).body.data;
    assert.equal(listed.length, 1, 'one payment for one submit');
    assert.deepEqual(
      [listed[0].amount, listed[0].currency, listed[0].status, listed[0].description, listed[0].customer.name, listed[0].customer.email],
      [1250, 'EUR', 'successful', 'Order 1042', 'Ada Lovelace', 'ada@example.com'],
    );
    const row = page.getByRole('region', { name: 'Payments table' }).getByRole('row', { name: new RegExp(listed[0].id) });
    await row.waitFor();
    const cells = await row.getByRole('cell').allInnerTexts();
    assert.deepEqual(cells.slice(2, 4), ['Ada Lovelace', 'Order 1042']);
    const overflow = await overflowOf(page, 'Payments table');
    assert.ok(overflow <= 1, `the payments table fits a 1280 px screen (${overflow} px over)`);
    await shots(page, 'dashboard-test-payment');

    // The form's API makes test payments only: in live mode it refuses, and nothing is made.
    const live = await page.evaluate(async () => {
      const { csrf_token: csrf } = (await (await fetch('/dashboard/api/session')).json()) as { csrf_token: string };
      const post = (path: string, body: unknown) => fetch(`/dashboard/api${path}`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify(body),
      });
      await post('/mode', { mode: 'live' });
      const answer = await post('/payments', { amount: 100, currency: 'EUR', payment_method: 'card' });
      await post('/mode', { mode: 'test' });
      return { status: answer.status, body: (await answer.json()) as { error: { code: string } } };
    });
    assert.deepEqual([live.status, live.body.error.code], [403, 'forbidden']);
    assert.equal((await request(stack.baseUrl, 'GET', '/v1/payments', { key })).body.data.length, 1);
  });

  test('a refused call in the request log says its error, and holds no secret or card number', async () => {
    const { stack, page } = ui;
    const refused = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 1000, currency: 'EUR', payment_method: 'card', test_scenario: 'declined' },
    });
    assert.equal(refused.status, 422);
    const secretInPath = await request(stack.baseUrl, 'GET', `/v1/payments/${key}`, { key });
    const cardInPath = await request(stack.baseUrl, 'GET', '/v1/payments/4242424242424242', { key });
    assert.equal(cardInPath.body.error.code, 'card_data_not_accepted');

    const open = async (requestId: string) => {
      await eventually('the call in the request log', async () => {
        await page.goto(`${stack.baseUrl}/dashboard/developers/request-log`);
        const link = page.getByRole('link', { name: requestId });
        return (await link.count()) > 0 ? link : undefined;
      }).then((link) => link.click());
      await page.getByRole('heading', { name: 'Error answered' }).waitFor();
      return page.locator('main').innerText();
    };
    const text = await open(refused.body.request_id);
    assert.match(text, /validation_error/);
    assert.ok(text.includes(refused.body.error.message), `the message "${refused.body.error.message}" is shown`);
    assert.match(text, /Field\s+test_scenario/);
    await shots(page, 'dashboard-request-log-error');

    const secretText = await open(secretInPath.body.request_id);
    assert.match(secretText, new RegExp(secretInPath.body.error.code));
    assert.ok(!secretText.includes(key), 'the API key is not shown');
    assert.ok(!secretText.includes(key.slice('svc_sk_test_'.length)), 'nor its secret part');
    const cardText = await open(cardInPath.body.request_id);
    assert.match(cardText, /card_data_not_accepted/);
    assert.doesNotMatch(cardText, /4242/);
    const stored = await stack.query('SELECT path, error_message, error_param FROM gateway.request_log WHERE request_id = ANY($1)', [
      [secretInPath.body.request_id, cardInPath.body.request_id],
    ]);
    assert.doesNotMatch(JSON.stringify(stored.rows), new RegExp(`4242424242424242|${key.slice('svc_sk_test_'.length)}`));
  });

  test('a failing endpoint\'s delivery says when its next automatic attempt is', async () => {
    const { stack, page } = ui;
    const endpoint = await stack.manage('POST', `/projects/${projectId}/webhook-endpoints`, {
      mode: 'test', url: receiver.url, events: ['payment.successful'],
    });
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
    const sent = await request(stack.baseUrl, 'POST', '/v1/webhooks/test', { key, body: { event_type: 'payment.successful' } });
    assert.ok(sent.status < 300, JSON.stringify(sent.body));
    const delivery = await eventually('a failed delivery with its next attempt', async () => {
      const { body } = await stack.manage('GET', `/projects/${projectId}/webhook-deliveries?mode=test&status=failed`);
      return body.data.find((d: { next_attempt_at: string | null }) => d.next_attempt_at !== null);
    });
    assert.ok(Date.parse(delivery.next_attempt_at) > Date.parse(delivery.created_at));

    await page.goto(`${stack.baseUrl}/dashboard/developers/deliveries/${delivery.id}`);
    const next = page.getByText(/^Next automatic attempt: /);
    await next.waitFor();
    const shown = await page.evaluate((iso) => new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' }), delivery.next_attempt_at);
    assert.equal(await next.innerText(), `Next automatic attempt: ${shown}.`);
    await shots(page, 'dashboard-delivery-next-attempt');
  });

  test('a routing rule created, changed and deleted with the form is what the API returns', async () => {
    const { stack, page } = ui;
    const rules = async () => (await stack.manage('GET', `/projects/${projectId}/routing-rules?mode=test`)).body.data;
    await page.goto(`${stack.baseUrl}/dashboard/settings/routing`);
    await page.getByRole('button', { name: 'New rule' }).click();
    const form = page.getByRole('form', { name: 'New routing rule' });
    await form.getByLabel('Name').fill('eur-cards');
    await form.getByLabel('Currencies').fill('eur');
    await form.getByRole('group', { name: 'Payment methods' }).getByLabel('card').check();
    await form.getByLabel('Minimum amount').fill('500');
    await form.getByLabel('Priority of the new rule').fill('5');
    await form.getByLabel('Providers of the new rule').fill('demo_alpha, demo_beta');
    await form.getByLabel('Rule strategy').selectOption('volume_split');
    await form.getByLabel('Rule weights (volume split)').fill('demo_alpha=60, demo_beta=30');
    await form.getByRole('button', { name: 'Create rule' }).click();
    const weightsError = form.locator('.field', { has: page.getByLabel('Rule weights (volume split)') }).getByRole('alert');
    await weightsError.waitFor();
    assert.match(await weightsError.innerText(), /100/);
    assert.deepEqual(await rules(), [], 'a refused rule is not made');
    await shots(page, 'dashboard-routing-form-error');

    await form.getByLabel('Rule weights (volume split)').fill('demo_alpha=60, demo_beta=40');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await page.getByText('eur-cards created.').waitFor();
    const [created] = await rules();
    assert.deepEqual(
      [created.name, created.priority, created.currencies, created.countries, created.payment_method_types, created.min_amount,
        created.max_amount, created.providers, created.strategy, created.variant],
      ['eur-cards', 5, ['EUR'], [], ['card'], 500, null, ['demo_alpha', 'demo_beta'],
        { type: 'volume_split', weights: { demo_alpha: 60, demo_beta: 40 } }, null],
    );

    // The rule's summary says its amounts as money in its one currency.
    await page.getByText(/currency EUR; method card; amount €5\.00 to any → demo_alpha, demo_beta/).waitFor();

    const edit = page.getByRole('form', { name: 'Change eur-cards' });
    assert.equal(await edit.getByLabel('Currencies of eur-cards').inputValue(), 'EUR');
    assert.equal(await edit.getByLabel('Minimum amount of eur-cards').inputValue(), '500');
    await edit.getByLabel('Countries of eur-cards').fill('de, fr');
    await edit.getByLabel('Maximum amount of eur-cards').fill('100000');
    await edit.getByLabel('Providers of eur-cards').fill('demo_beta, demo_alpha');
    await edit.getByLabel('eur-cards: strategy').selectOption('success_rate');
    await edit.getByLabel('eur-cards: minimum sample (learning)').fill('50');
    await edit.getByLabel('Variant share % of eur-cards').fill('90');
    await edit.getByRole('button', { name: 'Save eur-cards' }).click();
    const shareError = edit.locator('.field', { has: page.getByLabel('Variant share % of eur-cards') }).getByRole('alert');
    await shareError.waitFor();
    assert.match(await shareError.innerText(), /variant\.share must be a number from 0\.01 to 0\.5/);
    await edit.getByLabel('Variant share % of eur-cards').fill('');
    await edit.getByRole('button', { name: 'Save eur-cards' }).click();
    await page.getByText('eur-cards saved: countries and max amount and providers and strategy changed, a new experiment period begins.').waitFor();
    const [changed] = await rules();
    assert.deepEqual(
      [changed.providers, changed.strategy, changed.variant, changed.currencies, changed.countries, changed.payment_method_types,
        changed.min_amount, changed.max_amount],
      [['demo_beta', 'demo_alpha'], { type: 'success_rate', settings: { minSample: 50 } }, null, ['EUR'], ['DE', 'FR'], ['card'], 500, 100_000],
    );

    await page.getByRole('button', { name: 'Delete eur-cards' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete eur-cards' }).click();
    await page.getByText('eur-cards deleted.').waitFor();
    assert.deepEqual(await rules(), []);
    assert.deepEqual(ui.seen.problems, []);
  });
});
