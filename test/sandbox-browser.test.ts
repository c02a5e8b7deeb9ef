import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type BrowserContext } from 'playwright-core';
import type { Subscription } from '../services/platform/bus/index.js';
import { isInternalType } from '../services/platform/internal-events.js';
import type { EventEnvelope } from '../services/contract/index.js';
import { CHROMIUM, CHROMIUM_LAUNCH, skipWithoutChromium as skip } from './helpers/browser-page.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { serveLoopback, type LoopbackServer } from './helpers/stand-in-server.js';

// A person completes a redirect payment in a real browser: Debian's Chromium (helpers/browser-page.ts).
// CI installs Chromium (.ci/run), so there a missing browser fails the test; elsewhere it is
// skipped with the reason.

describe('the sandbox hosted page in a real browser', { skip }, () => {
  let stack: TestStack;
  let key: string;
  let shop: LoopbackServer;
  let shopUrl: string;
  let userDataDir: string;
  let browser: BrowserContext | undefined;
  let sub: Subscription;
  const returns: IncomingMessage[] = [];
  const seen: EventEnvelope[] = [];

  before(async () => {
    // The merchant's site the customer returns to.
    shop = await serveLoopback((req, res) => {
      returns.push(req);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html lang="en"><title>Shop</title><h1>Thanks for your order</h1></html>');
    });
    shopUrl = shop.baseUrl;
    stack = await startTestStack();
    key = (await stack.newMerchantKey('test')).secret;
    const filter = stack.testBus.nats ? `${stack.testBus.nats.subjectPrefix}.>` : '>';
    sub = await stack.testBus.bus.consume('sandbox_browser_test', [filter], async (event) => {
      seen.push(event);
    });
    userDataDir = await mkdtemp(join(tmpdir(), 'svc-chromium-'));
  });
  after(async () => {
    await browser?.close();
    if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
    await sub?.stop();
    await stack?.close();
    await shop?.close();
  });

  test('create an open_banking payment, approve it on the page, land on the return_url; the payment is successful', async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: CI must install Chromium before the tests (.ci/run)`);
    const created = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key,
      body: {
        amount: 2500, currency: 'EUR', payment_method: 'open_banking', reference: 'order-7',
        return_url: `${shopUrl}/return?order=7`,
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.status, 'processing');
    assert.equal(created.body.next_action.type, 'redirect');
    const pageUrl = new URL(created.body.next_action.url, stack.baseUrl).toString();

    browser = await chromium.launchPersistentContext(userDataDir, CHROMIUM_LAUNCH);
    const page = browser.pages()[0] ?? (await browser.newPage());
    page.setDefaultTimeout(30_000);
    const shown = await page.goto(pageUrl);
    assert.equal(shown?.status(), 200);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Approve this payment');
    assert.match(await page.locator('main').textContent() ?? '', /€25\.00/);
    // When the action expires, as people read it (the page has no script to learn their zone).
    const expires = new Date(created.body.next_action.expiresAt);
    const dd = page.locator('dt', { hasText: 'Expires' }).locator('xpath=following-sibling::dd[1]');
    const hhmm = expires.toISOString().slice(11, 16);
    assert.match(await dd.textContent() ?? '', new RegExp(`^\\d{1,2} [A-Z][a-z]{2} \\d{4}, ${hhmm} UTC$`));

    await Promise.all([
      page.waitForURL((url) => url.toString().startsWith(`${shopUrl}/return`)),
      page.getByRole('button', { name: 'Approve payment' }).click(),
    ]);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Thanks for your order');
    // The browser may also ask the shop for /favicon.ico.
    const landed = returns.filter((r) => r.url!.startsWith('/return'));
    assert.equal(landed.length, 1, 'the merchant\'s server saw the customer come back');
    const back = new URL(landed[0].url!, shopUrl);
    assert.equal(back.pathname, '/return');
    assert.equal(back.searchParams.get('order'), '7');
    assert.equal(back.searchParams.get('payment_id'), created.body.id);
    assert.equal(landed[0].headers.referer, undefined, 'the page\'s token never leaks in a Referer');

    const payment = await request(stack.baseUrl, 'GET', `/v1/payments/${created.body.id}`, { key });
    assert.equal(payment.body.status, 'successful');
    assert.equal(payment.body.next_action, null);
    const types = async () => seen.filter((e) => !isInternalType(e.type) && (e.data.object as { id: string }).id === created.body.id).map((e) => e.type);
    const deadline = Date.now() + 15_000;
    while (!(await types()).includes('payment.successful') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await types(), ['payment.created', 'payment.processing', 'payment.successful']);
  });
});
