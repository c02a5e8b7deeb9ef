import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createClient } from '@connectrpc/connect';
import type { Page } from 'playwright-core';
import { LedgerService } from '../proto/gen/svc/ledger/v1/ledger_pb.js';
import { PayoutsService } from '../proto/gen/svc/payouts/v1/payouts_pb.js';
import { createPeerTransport } from '../services/platform/rpc.js';
import { NARROW, PASSWORD, registerOwner, skipWithoutChromium, startStackAndBrowser, watch, WIDE, type StackInBrowser } from './helpers/browser-page.js';
import { eventually } from './helpers/eventually.js';
import { offsetClock, request, startTestStack, type TestStack } from './helpers/stack.js';
import { startReceiver, type Receiver } from './webhooks-support.js';

// Every table of the dashboard and its operator console, filled with real rows against the whole
// stack, fits a 1280 px screen: no table is wider than its box there. At 390 px the wide ones scroll
// in their box, and each that does shows the line saying so. A payment's routing notes read as money.

const DAY = 86_400_000;
const clock = offsetClock();

/** The tables on the page (each in its box) once its first table has rendered. */
async function tablesOn(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('.table-wrap table:visible').first().waitFor();
  // Some pages load their second table after the first; Home keeps its charts' figures folded.
  await page.waitForLoadState('networkidle');
  const folded = page.locator('details:not([open]) > summary:visible');
  while (await folded.count()) await folded.first().click();
}

interface Box { name: string; table: number; box: number; hint: boolean }

/** Every visible table box: its table's width, the box's inner width, and whether the scroll hint under it shows. */
const measure = (page: Page): Promise<Box[]> => page.evaluate(`[...document.querySelectorAll('.table-wrap')]
  .filter((w) => w.getClientRects().length > 0)
  .map((w) => {
    const hint = w.nextElementSibling;
    return {
      name: w.getAttribute('aria-label') || (w.closest('section, main')?.querySelector('h1, h2')?.textContent ?? 'a table'),
      table: w.scrollWidth,
      box: w.clientWidth,
      hint: !!hint && hint.matches('.scroll-hint') && hint.getClientRects().length > 0,
    };
  })`) as Promise<Box[]>;

/** Measured again for up to a second while layout settles after a resize or a late row. */
async function settled(page: Page, ok: (boxes: Box[]) => boolean): Promise<Box[]> {
  let boxes = await measure(page);
  for (let i = 0; i < 10 && !ok(boxes); i++) {
    await page.waitForTimeout(100);
    boxes = await measure(page);
  }
  return boxes;
}

const fits = (boxes: Box[]) => boxes.every((b) => b.table <= b.box + 1);
const hinted = (boxes: Box[]) => boxes.every((b) => b.table <= b.box + 1 || b.hint);

describe('every dashboard table fits a 1280 px screen, and scrolls with a hint at 390 px', { skip: skipWithoutChromium }, () => {
  let ui: StackInBrowser<TestStack>;
  let receiver: Receiver;
  let key = '';
  const email = `tables-${Date.now().toString(36)}@example.com`;
  const ids = { payment: '', settlement: '' };
  /** The pages where a table overflowed its box at 390 px (so the hint was checked, not vacuously). */
  const narrowOverflow: string[] = [];

  before(async () => {
    ui = await startStackAndBrowser(() => startTestStack({ clock }));
    receiver = await startReceiver(200);
  });
  after(async () => {
    await ui?.close();
    await receiver?.close();
  });

  const v1 = (method: string, path: string, body?: unknown) => request(ui.stack.baseUrl, method, path, { key, body });

  test('a merchant fills every list: payments, a refund, a dispute, deliveries, a settlement and a payout', async () => {
    const { page, stack } = ui;
    await registerOwner(page, stack, 'Tables shop with a long business name', email);
    await page.getByLabel('Key name').fill('the shop\'s checkout server');
    await page.getByRole('button', { name: 'Create test key' }).click();
    key = await page.getByRole('textbox', { name: 'Secret of “the shop\'s checkout server”' }).inputValue();
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();

    await page.goto(`${stack.baseUrl}/dashboard/developers/webhooks`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();

    const customer = { email: 'a.very.long.customer.address@example.com', name: 'Ada Lovelace-Byron' };
    for (const [amount, scenario] of [[123456789, 'success'], [2500, 'failover'], [990, 'hard_decline'], [4200, 'dispute']] as const) {
      const paid = await v1('POST', '/v1/payments', {
        amount, currency: 'EUR', payment_method: 'card', test_scenario: scenario, customer,
        description: 'Order 2024-000123 of three items, gift wrapped',
      });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      if (scenario === 'success') ids.payment = paid.body.id;
    }
    assert.equal((await v1('POST', `/v1/payments/${ids.payment}/refund`, { amount: 1000 })).status, 201);
    await eventually('the dispute', async () => ((await v1('GET', '/v1/disputes')).body.data.length > 0 ? true : undefined));
    await eventually('the ledger\'s transactions', async () => ((await v1('GET', '/v1/transactions')).body.data.length >= 4 ? true : undefined));

    const internal = (url: string) => createPeerTransport(url, stack.internalToken);
    clock.offsetMs += DAY + 60_000;
    await createClient(LedgerService, internal(stack.serviceUrls.ledger)).runSettlementCycle({});
    ids.settlement = await eventually('a settlement', async () => (await v1('GET', '/v1/settlements')).body.data[0]?.id);
    const payout = await v1('POST', '/v1/payouts', {
      amount: 100000, currency: 'EUR',
      destination: { type: 'bank_account', token: 'ben_demo_1a2b3c', display: 'DE89 •••• •••• •••• 3000', holder_name: 'Ada Lovelace', country: 'de' },
    });
    assert.equal(payout.status, 201, JSON.stringify(payout.body));
    clock.offsetMs += 61_000;
    await createClient(PayoutsService, internal(stack.serviceUrls.payouts)).dispatchPayouts({});
    await eventually('the deliveries', async () => (receiver.received.length >= 3 ? true : undefined));

    // The day the test clock moved ended the browser's session: sign in again.
    await page.goto(`${stack.baseUrl}/dashboard/sign-in`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });

  test('every page with a table, at 1280 and at 390 px', async (t) => {
    const { page, stack } = ui;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((u) => !u.pathname.endsWith('/sign-in'));

    // A demo provider's behaviour, for the sandbox page's table.
    await page.goto(`${stack.baseUrl}/dashboard/developers/sandbox`);
    await page.getByLabel('Approves (% of answered payments)').fill('80');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('region', { name: 'Demo behaviour table' }).waitFor();

    const pages = [
      '/', '/payments', `/payments/${ids.payment}`, '/disputes', '/payouts', '/balances', '/settlements',
      `/settlements/${ids.settlement}`, '/transactions', '/developers/api-keys', '/developers/deliveries',
      '/developers/request-log', '/developers/sandbox',
    ];
    for (const path of pages) {
      await t.test(path, async () => {
        await page.setViewportSize(WIDE);
        await tablesOn(page, `${stack.baseUrl}/dashboard${path}`);
        const wide = await settled(page, fits);
        assert.ok(wide.length > 0, `${path} shows a table`);
        assert.deepEqual(wide.filter((b) => b.table > b.box + 1), [], `${path}: a table is wider than its box at 1280 px`);
        await page.setViewportSize(NARROW);
        const narrow = await settled(page, hinted);
        assert.deepEqual(narrow.filter((b) => b.table > b.box + 1 && !b.hint), [], `${path}: a table wider than its box at 390 px has no scroll hint`);
        if (narrow.some((b) => b.table > b.box + 1)) narrowOverflow.push(path);
      });
    }
    await page.setViewportSize(WIDE);
    // The routing notes beside the scores speak money too, in the payment's currency.
    await page.goto(`${stack.baseUrl}/dashboard/payments/${ids.payment}`);
    const candidates = await page.getByRole('region', { name: 'Candidates table' }).innerText();
    assert.match(candidates, /fee \d+\.\d\d EUR on 1234567\.89 EUR/);
    assert.ok(narrowOverflow.includes('/transactions'), `the transactions table scrolls at 390 px (pages that did: ${narrowOverflow.join(', ')})`);
  });

  test('the operator console\'s tables, at 1280 and at 390 px', async () => {
    const { stack } = ui;
    const context = await ui.page.context().browser()!.newContext({ viewport: WIDE });
    const op = await context.newPage();
    watch(op, ui.seen);
    await op.goto(`${stack.baseUrl}/dashboard/operator`);
    await op.getByLabel('Operator token').fill(stack.operatorToken);
    await op.getByRole('button', { name: 'Sign in' }).click();
    await op.getByRole('heading', { name: 'Verification queue' }).waitFor();
    for (const name of ['Merchants', 'Audit log']) {
      await op.setViewportSize(WIDE);
      await op.getByRole('navigation', { name: 'Operator console' }).getByRole('link', { name }).click();
      await op.locator('.table-wrap table').first().waitFor();
      const wide = await settled(op, fits);
      assert.deepEqual(wide.filter((b) => b.table > b.box + 1), [], `${name}: a table is wider than its box at 1280 px`);
      await op.setViewportSize(NARROW);
      const narrow = await settled(op, hinted);
      assert.deepEqual(narrow.filter((b) => b.table > b.box + 1 && !b.hint), [], `${name}: no scroll hint at 390 px`);
    }
    await context.close();
    assert.deepEqual(ui.seen.problems, []);
  });
});
