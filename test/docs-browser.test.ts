import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, skipWithoutChromium as skip } from './helpers/browser-page.js';
import { startTestStack, type TestStack } from './helpers/stack.js';

// The API reference at /docs: served without a key, rendered by Scalar from the served
// /openapi.json, and with everything it needs from this deployment (no CDN, no web fonts).
// The browser is Debian's Chromium (helpers/browser-page.ts): CI installs it, so there a missing
// browser fails the test; elsewhere it is skipped with the reason.

let stack: TestStack;
before(async () => {
  stack = await startTestStack();
});
after(() => stack?.close());

test('/docs answers an HTML page without an API key, its script from this server', async () => {
  const first = await fetch(`${stack.baseUrl}/docs`, { redirect: 'manual' });
  // The renderer's page loads its script relative to /docs/, so /docs sends the browser there.
  assert.equal(first.status, 301);
  assert.equal(first.headers.get('location'), '/docs/');
  const page = await fetch(`${stack.baseUrl}/docs`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  assert.match(html, /<script src="js\/scalar\.js"><\/script>/);
  assert.doesNotMatch(html, /https?:\/\//, 'the page names no other host');
  const script = await fetch(`${stack.baseUrl}/docs/js/scalar.js`);
  assert.equal(script.status, 200);
  assert.match(script.headers.get('content-type') ?? '', /javascript/);
  assert.ok((await script.text()).includes('createApiReference'), 'the renderer itself, from node_modules');
});

describe('the API reference in a real browser', { skip }, () => {
  let browser: Browser | undefined;
  after(() => browser?.close());

  test('it renders the operations of /openapi.json, and no request leaves this host', async () => {
    browser = await launchChromium();
    const page = await browser.newPage();
    page.setDefaultTimeout(30_000);
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));

    const shown = await page.goto(`${stack.baseUrl}/docs`);
    assert.equal(shown?.status(), 200);
    await page.getByText('/v1/payments/{id}/capture').first().waitFor();
    const text = await page.locator('body').innerText();
    assert.match(text, /POST\s+\/v1\/payments\n/);
    assert.match(text, /POST\s+\/v1\/payments\/\{id\}\/capture/);
    assert.match(text, /Create a payment: risk, routing and provider attempts run inside the request\./);
    assert.match(text, /Apache-2\.0/);
    assert.ok(text.includes(stack.baseUrl), 'the server of the document: this deployment');

    assert.ok(requested.includes(`${stack.baseUrl}/openapi.json`), 'the reference loads the served document');
    const elsewhere = requested.filter((url) => !url.startsWith(`${stack.baseUrl}/`));
    assert.deepEqual(elsewhere, [], 'every request went to this deployment on 127.0.0.1');
  });
});
