import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, skipWithoutChromium as skip, watch } from './helpers/browser-page.js';
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

test('the icon answers at /favicon.svg and /favicon.ico, so no browser logs a 404 for it', async () => {
  for (const path of ['/favicon.svg', '/favicon.ico']) {
    const res = await fetch(`${stack.baseUrl}${path}`);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get('content-type'), 'image/svg+xml', path);
    assert.match(await res.text(), /^<svg /, path);
  }
});

test('/docs, its script and /openapi.json refuse framing and sniffing; the page allows only its own scripts', async () => {
  for (const path of ['/docs/', '/docs/js/scalar.js', '/openapi.json']) {
    const res = await fetch(`${stack.baseUrl}${path}`);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer', path);
  }
  const page = await fetch(`${stack.baseUrl}/docs/`);
  const html = await page.text();
  const csp = page.headers.get('content-security-policy') ?? '';
  const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
  assert.deepEqual(directives.get('default-src'), ["'none'"]);
  assert.deepEqual(directives.get('frame-ancestors'), ["'none'"]);
  assert.deepEqual(directives.get('object-src'), ["'none'"]);
  assert.deepEqual(directives.get('base-uri'), ["'none'"]);
  assert.deepEqual(directives.get('connect-src'), ["'self'"]);
  // Scripts: this server's file and the page's one inline script by its hash, never 'unsafe-inline' or eval.
  const inline = /<script(?![^>]*src=)[^>]*>([\s\S]*?)<\/script>/.exec(html)![1];
  const hash = `'sha256-${createHash('sha256').update(inline).digest('base64')}'`;
  assert.deepEqual(directives.get('script-src'), ["'self'", hash]);
});

describe('the API reference in a real browser', { skip }, () => {
  let browser: Browser | undefined;
  after(() => browser?.close());

  test('it renders the operations of /openapi.json, and no request leaves this host', async () => {
    browser = await launchChromium();
    const page = await browser.newPage();
    const seen = { requests: [] as string[], problems: [] as string[] };
    watch(page, seen);
    // No 404 (the favicon was one) nor any other failed request, console error, or the reference's
    // complaint about the document ("document validation errors", a warning).
    const failed: string[] = [];
    page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText}`));
    page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.url()}: ${r.status()}`); });
    page.on('console', (m) => {
      if (m.type() === 'error' || (m.type() === 'warning' && /validation/i.test(m.text()))) failed.push(`console ${m.type()}: ${m.text()}`);
    });
    page.setDefaultTimeout(30_000);
    const requested = seen.requests;

    const shown = await page.goto(`${stack.baseUrl}/docs`);
    assert.equal(shown?.status(), 200);
    await page.getByText('/v1/payments/{id}/capture').first().waitFor();
    // Scalar renders an operation's description after its heading; wait for the first one too.
    await page.getByText('Create a payment: risk, routing and provider attempts run inside the request.').first().waitFor();
    const text = await page.locator('body').innerText();
    assert.match(text, /POST\s+\/v1\/payments\n/);
    assert.match(text, /POST\s+\/v1\/payments\/\{id\}\/capture/);
    assert.match(text, /Create a payment: risk, routing and provider attempts run inside the request\./);
    assert.match(text, /Apache-2\.0/);
    assert.ok(text.includes(stack.baseUrl), 'the server of the document: this deployment');

    assert.ok(requested.includes(`${stack.baseUrl}/openapi.json`), 'the reference loads the served document');
    const elsewhere = requested.filter((url) => !url.startsWith(`${stack.baseUrl}/`) && !url.startsWith('data:'));
    assert.deepEqual(elsewhere, [], 'every request went to this deployment on 127.0.0.1');
    // Under its Content-Security-Policy the page runs and styles itself without a single refusal.
    assert.deepEqual(seen.problems, [], 'no CSP violation or script error in the console');
    // Short operation names in the navigation, and an example body that would pass validation.
    const nav = await page.locator('nav, aside').first().innerText();
    // The first tag's group is open on load; the others are collapsed.
    for (const name of ['Create a payment', 'List payments', 'Payment timeline', 'Capture a payment']) assert.ok(nav.includes(name), `${name} in the navigation`);
    assert.doesNotMatch(nav, /risk, routing and provider attempts/, 'not the long description');
    assert.doesNotMatch(await page.locator('body').innerText(), /"currency": ""/);
    await page.waitForTimeout(500); // late requests (the icon) have had their answer
    assert.ok(requested.some((url) => /\/favicon\.(svg|ico)$/.test(url)), 'the page has an icon');
    assert.deepEqual(failed, [], 'no failed request, no console error, no document validation warning');
    const background = await page.evaluate('getComputedStyle(document.body).backgroundColor');
    assert.notEqual(background, 'rgba(0, 0, 0, 0)', 'Scalar\'s theme (an inline stylesheet) applies');
  });
});
