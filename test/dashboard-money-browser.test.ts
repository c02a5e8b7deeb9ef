import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import type { Browser, Page } from 'playwright-core';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { launchChromium, parseCsv, PASSWORD, registerOwner, shots, skipWithoutChromium, watch, WIDE } from './helpers/browser-page.js';
import { eventually } from './helpers/eventually.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';

// The dashboard's money pages and the developers' request log in a real browser against the whole
// stack: a merchant takes payments (EUR and USD) with a key made in the dashboard, the demo
// providers settle them a day later, a payout is sent; then transactions, payouts, settlements and
// balances are each filtered and exported as CSV (the downloaded file holds what the filters
// select), the API key shows when it was last used, and the request log lists a /v1 call with the
// request id its answer carried. Screenshots at 1280 and 390 px in dist/test-screenshots/.

const DAY = 86_400_000;
/** Real time plus an offset the test moves: settlement days and payout holds pass in an instant. */
const clock = offsetClock();

describe('the dashboard\'s money pages and request log in a real browser', { skip: skipWithoutChromium }, () => {
  let stack: TestStack;
  let browser: Browser;
  let page: Page;
  const seen = { requests: [] as string[], problems: [] as string[] };
  const email = `money-${Date.now().toString(36)}@example.com`;
  let key = '';
  const eurPayments: string[] = [];
  let usdPayment = '';
  let paymentRequestId = '';
  let payoutId = '';

  before(async () => {
    stack = await startTestStack({ clock });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: WIDE, acceptDownloads: true });
    watch(page, seen);
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  const nav = async (name: string) => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
    // Each of these pages' heading is its link's text: waiting for it waits out the previous page.
    await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
  };
  /** A list page whose first page has loaded: filling its filters before would race the re-render. */
  const listPage = async (name: string) => {
    await nav(name);
    await page.getByRole('region', { name: `${name} table` }).waitFor();
  };
  const v1 = (method: string, path: string, body?: unknown) => request(stack.baseUrl, method, path, { key, body });

  /** Clicks the page's export link and reads the file the browser downloaded. */
  async function exported(what: string): Promise<{ name: string; rows: Record<string, string>[]; text: string }> {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: `Export ${what} as CSV` }).click(),
    ]);
    const text = await readFile((await download.path())!, 'utf8');
    return { name: download.suggestedFilename(), rows: parseCsv(text), text };
  }

  test('a merchant registers, makes a test key, pays over /v1; providers settle; a payout is sent', async () => {
    await registerOwner(page, stack, 'Money shop', email);
    await page.getByLabel('Key name').fill('books');
    await page.getByRole('button', { name: 'Create test key' }).click();
    key = await page.getByRole('textbox', { name: 'Secret of “books”' }).inputValue();
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    assert.match(await page.getByRole('row', { name: /books/ }).innerText(), /Never/);

    for (const amount of [2500, 4000]) {
      const paid = await v1('POST', '/v1/payments', { amount, currency: 'EUR', payment_method: 'card', test_scenario: 'success' });
      assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
      eurPayments.push(paid.body.id);
      paymentRequestId = paid.headers.get('x-request-id')!;
    }
    const usd = await v1('POST', '/v1/payments', { amount: 1500, currency: 'USD', payment_method: 'card' });
    assert.equal(usd.body.status, 'successful', JSON.stringify(usd.body));
    usdPayment = usd.body.id;
    await eventually('the ledger to record the payments', async () => {
      const list = await v1('GET', '/v1/transactions?type=payment');
      return list.body.data.length === 3 ? true : undefined;
    });

    const internal = (url: string) => createPeerTransport(url, stack.internalToken);
    clock.offsetMs += DAY + 60_000;
    await createClient(LedgerService, internal(stack.serviceUrls.ledger)).runSettlementCycle({});
    await eventually('the demo settlements', async () => ((await v1('GET', '/v1/settlements')).body.data.length > 0 ? true : undefined));
    const payout = await v1('POST', '/v1/payouts', {
      amount: 1000, currency: 'EUR',
      destination: { type: 'bank_account', token: 'ben_demo_1a2b3c', display: 'DE89 •••• 3000', holder_name: 'Ada Lovelace', country: 'de' },
    });
    assert.equal(payout.status, 201, JSON.stringify(payout.body));
    payoutId = payout.body.id;
    clock.offsetMs += 61_000;
    await createClient(PayoutsService, internal(stack.serviceUrls.payouts)).dispatchPayouts({});
    await eventually('the payout sent', async () => ((await v1('GET', `/v1/payouts/${payoutId}`)).body.status === 'successful' ? true : undefined));

    // A day went by: the browser's session ended after 24 hours unused, so the merchant signs in again.
    await page.goto(`${stack.baseUrl}/dashboard/sign-in`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
  });

  test('transactions are filtered by type and currency, paged, and exported as CSV', async () => {
    await listPage('Transactions');
    await page.getByLabel('Type').selectOption('payment');
    await page.getByLabel('Currency').fill('EUR');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/type=payment/);
    const table = page.getByRole('region', { name: 'Transactions table' });
    // The unfiltered table already held these payments, so wait for the rows the filter removes to go.
    await table.getByRole('row').filter({ hasText: usdPayment }).waitFor({ state: 'detached' });
    const rows = table.getByRole('row').filter({ hasText: /txn_/ });
    assert.deepEqual((await rows.allInnerTexts()).map((r) => /successful\s+payment\s+(pay_\w+)/.exec(r)?.[1]).sort(), [...eurPayments].sort());
    await shots(page, '30-transactions');
    const csv = await exported('transactions');
    assert.equal(csv.name, 'transactions-test.csv');
    assert.match(csv.text, /^id,type,status,entity_type,entity_id,payment_id,amount,currency,/);
    assert.deepEqual(csv.rows.map((r) => r.entity_id).sort(), [...eurPayments].sort());
    assert.ok(csv.rows.every((r) => r.type === 'payment' && r.currency === 'EUR' && r.status === 'successful'), csv.text);
    assert.deepEqual(csv.rows.map((r) => Number(r.amount)).sort((a, b) => a - b), [2500, 4000]);
  });

  test('payouts are filtered by status and exported; a payout has its page', async () => {
    await listPage('Payouts');
    await page.getByLabel('Status').selectOption('successful');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/status=successful/);
    await page.getByRole('link', { name: '€10.00' }).waitFor();
    await shots(page, '31-payouts');
    const csv = await exported('payouts');
    assert.deepEqual(csv.rows.map((r) => [r.id, r.status, r.amount, r.currency, r.destination]), [
      [payoutId, 'successful', '1000', 'EUR', 'DE89 •••• 3000'],
    ]);
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No payouts match.').waitFor();
    assert.deepEqual((await exported('payouts')).rows, [], 'the export follows the filter');
    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('link', { name: '€10.00' }).click();
    await page.getByRole('heading', { name: 'Destination' }).waitFor();
    assert.match(await page.locator('main').innerText(), /DE89 •••• 3000[\s\S]*Ada Lovelace/);
    await shots(page, '32-payout');
  });

  test('settlements are filtered by status, exported, and a settlement shows its items', async () => {
    await listPage('Settlements');
    await page.getByLabel('Status').selectOption('settled');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/status=settled/);
    await page.getByRole('region', { name: 'Settlements table' }).waitFor();
    await shots(page, '33-settlements');
    const csv = await exported('settlements');
    const listed = (await v1('GET', '/v1/settlements?status=settled')).body.data as { id: string }[];
    assert.ok(csv.rows.length > 0);
    assert.deepEqual(csv.rows.map((r) => r.id).sort(), listed.map((s) => s.id).sort());
    assert.ok(csv.rows.every((r) => r.status === 'settled'), csv.text);
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No settlements match.').waitFor();
    assert.deepEqual((await exported('settlements')).rows, []);

    await page.getByLabel('Status').selectOption('');
    await page.getByRole('button', { name: 'Apply' }).click();
    const eurSettlement = csv.rows.find((r) => r.currency === 'EUR')!;
    await page.getByRole('link', { name: new RegExp(`€${(Number(eurSettlement.net_amount) / 100).toFixed(2)}`) }).first().click();
    await page.getByRole('heading', { name: /^Items \(\d+\)$/ }).waitFor();
    const items = await page.getByRole('region', { name: 'Settlement items table' }).innerText();
    assert.ok(eurPayments.some((id) => items.includes(id)), items);
    await shots(page, '34-settlement');
  });

  test('balances show each currency, the figures\' note once, and export as CSV', async () => {
    await nav('Balances');
    const table = page.getByRole('region', { name: 'Balances table' });
    await table.waitFor();
    assert.match(await table.innerText(), /EUR[\s\S]*USD|USD[\s\S]*EUR/);
    const notes = page.locator('main').getByRole('note');
    assert.equal(await notes.count(), 1, 'the note is said once for every currency');
    assert.match(await notes.innerText(), /not a custodian/);
    await shots(page, '35-balances');
    const csv = await exported('balances');
    assert.deepEqual(csv.rows.map((r) => r.currency).sort(), ['EUR', 'USD']);
    const eur = csv.rows.find((r) => r.currency === 'EUR')!;
    assert.equal(eur.processed_gross, '6500');
    // Every figure as /v1/balances gives it (the payout's 1000 plus its fee in payouts_sent, for one).
    const api = (await v1('GET', '/v1/balances')).body.data as Record<string, string | number>[];
    for (const b of api) {
      const row = csv.rows.find((r) => r.currency === b.currency)!;
      assert.deepEqual(row, Object.fromEntries(Object.keys(row).map((k) => [k, String(b[k])])));
    }
    assert.ok(eur.note.length > 0);
  });

  test('the API key shows when it was last used, and the request log lists the /v1 calls with their request ids', async () => {
    await nav('API keys');
    const row = page.getByRole('row', { name: /books/ });
    await row.waitFor();
    assert.doesNotMatch(await row.innerText(), /Never/);
    await nav('Request log');
    const log = page.getByRole('region', { name: 'Request log table' });
    await log.getByText(paymentRequestId).waitFor();
    const line = await page.getByRole('row', { name: new RegExp(paymentRequestId) }).innerText();
    assert.match(line, /POST\s+\/v1\/payments\s+201/);
    assert.match(line, /svc_sk_test_/);
    assert.match(await log.innerText(), new RegExp(`GET\\s+/v1/payouts/${payoutId}\\s+200`));
    await shots(page, '36-request-log');
    assert.deepEqual(seen.problems, []);
    assert.deepEqual(seen.requests.filter((u) => !u.startsWith(stack.baseUrl)), [], 'nothing loaded from elsewhere');
  });
});
