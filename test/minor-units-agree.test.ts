import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CURRENCIES, MINOR_UNITS } from '../services/contract/currencies.js';
import { parseCsv, registerOwner, skipWithoutChromium, startStackAndBrowser, type StackInBrowser } from './helpers/browser-page.js';
import { eventually } from './helpers/eventually.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { startReceiver, type Receiver } from './webhooks-support.js';

// One table of minor units for the whole product: for every currency the contract accepts, a
// payment of 123456 minor units is that amount in the API, its webhook and the CSV export; the API's
// messages and the dashboard (in a real browser, whose Intl data is not the server's) read it with
// the table's digits: 1,234.56 EUR, 123,456 HUF, 123.456 KWD.

const AMOUNT = 123456;

/** The digits after the decimal point in a shown amount ("€1,234.56" 2, "HUF 123,456" 0), and its value in minor units. */
function read(shown: string, digits: number): { digits: number; minor: number } {
  const number = /[\d,]+(?:\.(\d+))?/.exec(shown)?.[0] ?? '';
  const fraction = number.split('.')[1] ?? '';
  return { digits: fraction.length, minor: Number(number.replace(/[,.]/g, '')) * 10 ** (digits - fraction.length) };
}

describe('the API, the CSV export, the webhooks and the dashboard agree on every currency\'s minor units', { skip: skipWithoutChromium }, () => {
  let ui: StackInBrowser<TestStack>;
  let receiver: Receiver;
  let key = '';
  /** Payment id by currency. */
  const paid = new Map<string, string>();

  before(async () => {
    ui = await startStackAndBrowser(() => startTestStack());
    receiver = await startReceiver(200);
  });
  after(async () => {
    await ui?.close();
    await receiver?.close();
  });
  const v1 = (method: string, path: string, body?: unknown) => request(ui.stack.baseUrl, method, path, { key, body });

  test('a payment of 123456 minor units in each currency, over the API, with its webhook', async () => {
    const { page, stack } = ui;
    await registerOwner(page, stack, 'Every currency shop', `minor-${Date.now().toString(36)}@example.com`);
    await page.getByLabel('Key name').fill('all');
    await page.getByRole('button', { name: 'Create test key' }).click();
    key = await page.getByRole('textbox', { name: 'Secret of “all”' }).inputValue();
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    await page.goto(`${stack.baseUrl}/dashboard/developers/webhooks`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();

    for (const currency of CURRENCIES) {
      const res = await v1('POST', '/v1/payments', { amount: AMOUNT, currency, payment_method: 'card', test_scenario: 'success' });
      assert.equal(res.status, 201, `${currency}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.amount, AMOUNT, currency);
      paid.set(currency, res.body.id);
    }
    const hooked = await eventually('every payment.successful delivered', async () => {
      const objects = receiver.received.map((r) => JSON.parse(r.body.toString())).filter((e) => e.type === 'payment.successful').map((e) => e.data.object);
      return objects.length >= CURRENCIES.size ? objects : undefined;
    }, 60_000);
    for (const [currency, id] of paid) {
      const object = hooked.find((o: { id: string }) => o.id === id);
      assert.deepEqual([object?.amount, object?.currency], [AMOUNT, currency], `the webhook of ${id}`);
    }
  });

  test('the API\'s messages read each amount with the table\'s digits', async () => {
    for (const [currency, id] of paid) {
      const refused = await v1('POST', `/v1/payments/${id}/refund`, { amount: AMOUNT + 1 });
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      // "amount 1234.57 EUR exceeds the refundable rest of payment pay_…: 1234.56 EUR"
      const rest = new RegExp(`: (\\S+) ${currency}$`).exec(refused.body.error.message)?.[1] ?? '';
      assert.deepEqual(read(rest, MINOR_UNITS.get(currency)!), { digits: MINOR_UNITS.get(currency), minor: AMOUNT }, refused.body.error.message);
    }
  });

  test('the CSV export holds each amount in minor units', async () => {
    const { page, stack } = ui;
    const csv = parseCsv(await (await page.request.get(`${stack.baseUrl}/dashboard/api/payments/export.csv`)).text());
    for (const [currency, id] of paid) {
      const row = csv.find((r) => r.id === id);
      assert.deepEqual([row?.amount, row?.currency], [String(AMOUNT), currency], `the CSV row of ${id}`);
    }
  });

  test('the dashboard shows each amount with the table\'s digits', async () => {
    const { page, stack } = ui;
    const shown = new Map<string, string>();
    await page.goto(`${stack.baseUrl}/dashboard/payments`);
    const table = page.getByRole('region', { name: 'Payments table' });
    for (;;) {
      await table.waitFor();
      await page.waitForLoadState('networkidle');
      for (const link of await table.locator('a[href*="/payments/pay_"]').all()) {
        shown.set(decodeURIComponent((await link.getAttribute('href'))!.split('/').at(-1)!), await link.innerText());
      }
      const next = page.getByRole('button', { name: 'Next' });
      if (await next.isDisabled()) break;
      const first = await table.locator('a[href*="/payments/pay_"]').first().getAttribute('href');
      await next.click();
      // Polled from here: the dashboard's CSP forbids the string evaluation waitForFunction would use.
      for (let i = 0; i < 200 && await table.locator('a[href*="/payments/pay_"]').first().getAttribute('href') === first; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    for (const [currency, id] of paid) {
      const text = shown.get(id);
      assert.ok(text, `${id} (${currency}) is listed`);
      assert.deepEqual(read(text, MINOR_UNITS.get(currency)!), { digits: MINOR_UNITS.get(currency), minor: AMOUNT }, `${currency} shown as ${text}`);
    }
    assert.deepEqual(ui.seen.problems, []);
  });
});
