import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createLogger } from '../services/platform/logger.js';
import { launchChromium, NARROW, parseCsv, PASSWORD, registerOwner, shots, SHOTS, skipWithoutChromium, watch, WIDE } from './helpers/browser-page.js';
import { eventually } from './helpers/eventually.js';
import { captureLogs } from './helpers/log-sink.js';
import { MAIL, mailedLink } from './helpers/dashboard-browser.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';
import { serveLoopback, type LoopbackServer } from './helpers/stand-in-server.js';

// A new merchant uses the dashboard in a real browser (Debian's Chromium driven by playwright-core,
// as in sandbox-browser.test.ts) against the whole stack: registers, creates a test key and pays
// with it over /v1, finds the payment and refunds it from its page, adds a webhook endpoint on a
// local receiver and resends its delivery, invites a read-only member who sees no secret, and gets
// verified to create a live key (an operator approves it in the operator console, and its audit log
// shows who did what from where); on a phone, signs out from the menu. Home in several currencies,
// transactions and the IP allow-list are walked through in dashboard-glance-browser.test.ts. Every page is saved as a
// screenshot at 1280 and 390 pixels wide in dist/test-screenshots/ for a person to look at. No
// request leaves 127.0.0.1 and the Content-Security-Policy is never violated.

describe('the dashboard in a real browser', { skip: skipWithoutChromium }, () => {
  const { stream } = captureLogs();
  let stack: TestStack;
  let browser: Browser;
  let receiver: LoopbackServer;
  let receiverUrl: string;
  const received: IncomingMessage[] = [];
  const seen = { requests: [] as string[], problems: [] as string[] };
  let page: Page;
  const email = `owner-${Date.now().toString(36)}@example.com`;
  let key = '';
  let paymentId = '';

  before(async () => {
    receiver = await serveLoopback((req, res) => {
      received.push(req);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    receiverUrl = `${receiver.baseUrl}/hooks`;
    stack = await startTestStack({ logger: createLogger('test', 'info', stream) });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: WIDE });
    watch(page, seen);
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
    await receiver?.close();
  });

  /**
   * The deployment's operator, in a browser of their own: a wrong token is refused, the right one
   * opens the console, whose queue shows the submission as made; approving it is confirmed, and the
   * merchants list and the audit log (with the client's address) show the result.
   */
  const approveInOperatorConsole = async () => {
    const context = await browser.newContext({ viewport: WIDE });
    const op = await context.newPage();
    watch(op, seen);
    await op.goto(`${stack.baseUrl}/dashboard/operator`);
    await op.getByRole('heading', { name: 'Operator console' }).waitFor();
    await op.getByLabel('Operator token').fill('not the token');
    await op.getByRole('button', { name: 'Sign in' }).click();
    await op.getByText('The operator token is not right.').waitFor();
    await shots(op, '18a-operator-sign-in');
    await op.getByLabel('Operator token').fill(stack.operatorToken);
    await op.getByRole('button', { name: 'Sign in' }).click();
    await op.getByRole('heading', { name: 'Verification queue' }).waitFor();
    const card = op.getByRole('listitem').filter({ has: op.getByRole('heading', { name: 'Browser shop' }) });
    assert.match(await card.innerText(), /Browser Shop Ltd[\s\S]*HRB 12345[\s\S]*incorporation-2024\.pdf[\s\S]*director-id\.pdf/);
    await shots(op, '18b-operator-queue');
    await card.getByRole('button', { name: 'Approve Browser shop' }).click();
    await op.getByRole('dialog').getByRole('button', { name: 'Approve', exact: true }).click();
    await op.getByText('Browser shop: approved.').waitFor();
    const consoleNav = op.getByRole('navigation', { name: 'Operator console' });
    await consoleNav.getByRole('link', { name: 'Merchants' }).click();
    const row = op.getByRole('row').filter({ hasText: 'Browser shop' });
    assert.match(await row.innerText(), /approved/);
    await shots(op, '18c-operator-merchants');
    await consoleNav.getByRole('link', { name: 'Audit log' }).click();
    const verified = op.getByRole('row').filter({ hasText: 'merchant.verified' }).first();
    assert.match(await verified.innerText(), /operator[\s\S]*127\.0\.0\.1/);
    assert.match(await op.getByRole('row').filter({ hasText: 'api_key.created' }).first().innerText(), new RegExp(email));
    await shots(op, '18d-operator-audit-log');
    await context.close();
  };

  const nav = async (name: string) => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
  };

  test('a visitor is sent to sign in, and registers: merchant, project and test mode at once', async () => {
    const shown = await page.goto(`${stack.baseUrl}/dashboard/`);
    assert.equal(shown?.status(), 200);
    assert.match(shown?.headers()['content-security-policy'] ?? '', /default-src 'self'/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    assert.match(page.url(), /\/dashboard\/sign-in$/);
    await shots(page, '01-sign-in');
    await page.getByRole('link', { name: 'Create an account' }).waitFor();
    await registerOwner(page, stack, 'Browser shop', email, (name) => shots(page, name));
    // One labelled switch, its name visible beside it; no separate "Test" button and "Test data" label.
    const modeSwitch = page.getByRole('switch', { name: 'Live mode' });
    assert.equal(await modeSwitch.getAttribute('aria-checked'), 'false');
    assert.equal((await modeSwitch.innerText()).trim(), 'Live mode');
    assert.equal(await page.locator('header').getByText('Test data', { exact: true }).count(), 0);
    assert.equal(await page.locator('header').getByRole('button', { name: 'Test', exact: true }).count(), 0);
    assert.match(await page.locator('header').innerText(), /Browser shop/);
  });

  test('a test key is created with a name and its secret shown once, with a copy button', async () => {
    await page.getByLabel('Key name').fill('checkout server');
    await page.getByRole('button', { name: 'Create test key' }).click();
    const secret = page.getByRole('textbox', { name: 'Secret of “checkout server”' });
    key = await secret.inputValue();
    assert.match(key, /sk_test_/);
    await page.getByRole('button', { name: 'Copy' }).waitFor();
    await shots(page, '03-api-key-created');
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    await page.getByRole('cell', { name: 'checkout server', exact: true }).waitFor();
    assert.ok(!(await page.content()).includes(key), 'once dismissed, the secret is nowhere in the page');
    await shots(page, '04-api-keys');
  });

  test('a payment made with the key over /v1 appears in the list, and its page shows the timeline', async () => {
    // Routed by a success_rate rule that trusts one outcome: a first payment teaches it
    // Demo Alpha's rate, so the page can show the learned reason for the second.
    const session: any = await page.evaluate("fetch('/dashboard/api/session').then((r) => r.json())");
    const projectId: string = session.project.id;
    const rule = await stack.manage('POST', `/projects/${projectId}/routing-rules`, {
      mode: 'test', name: 'eur-by-rate', priority: 1, currencies: ['EUR'], providers: ['demo_alpha', 'demo_beta', 'demo_gamma'],
      strategy: { type: 'success_rate', settings: { minSample: 1, explorationShare: 0 } },
    });
    assert.equal(rule.status, 201, JSON.stringify(rule.body));
    const warmUp = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key, body: { amount: 990, currency: 'EUR', payment_method: 'card', country: 'GB', test_scenario: 'success' },
    });
    assert.equal(warmUp.status, 201, JSON.stringify(warmUp.body));
    await eventually('routing-risk counted the first payment\'s outcome', async () => ((await stack.query(
      'SELECT 1 FROM routing_risk.outcome_minutes WHERE project_id = $1 AND succeeded > 0', [projectId])).rowCount ? true : undefined));
    const created = await request(stack.baseUrl, 'POST', '/v1/payments', {
      key,
      body: {
        amount: 1250, currency: 'EUR', payment_method: 'card', reference: 'order-1', test_scenario: 'success',
        description: 'Two mugs', metadata: { cart: 'c-77' },
        customer: { email: 'ada@example.com', name: 'Ada Lovelace', country: 'GB' },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    paymentId = created.body.id;
    await nav('Payments');
    const row = page.getByRole('link', { name: '€12.50' });
    await row.waitFor();
    assert.match(await page.locator('table').innerText(), new RegExp(paymentId));
    await page.getByLabel('Status').selectOption('successful');
    await page.getByLabel('Method').selectOption('card');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/status=successful/);
    await row.waitFor();
    // At 1280 px the filters and their button lay out on one row.
    const tops = await page.getByRole('search', { name: 'Filter payments' }).locator('.field, button')
      .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().bottom)));
    assert.equal(new Set(tops).size, 1, `filter bottoms: ${tops.join(', ')}`);
    const csv = parseCsv(String(await page.evaluate("fetch('/dashboard/api/payments/export.csv?status=successful').then((r) => r.text())")));
    assert.deepEqual(csv.filter((r) => r.id === paymentId).map((r) => [r.amount, r.currency, r.customer_email, r.description]),
      [['1250', 'EUR', 'ada@example.com', 'Two mugs']]);
    await page.getByRole('link', { name: 'Export payments as CSV' }).waitFor();
    await shots(page, '05-payments');
    await row.click();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    assert.match(await page.locator('h1').innerText(), /€12\.50\s+successful/);
    const customer = await page.locator('section[aria-labelledby="customer"]').innerText();
    assert.match(customer, /Email\s+ada@example\.com[\s\S]*Name\s+Ada Lovelace[\s\S]*Country\s+GB/);
    assert.match(await page.locator('section[aria-labelledby="metadata"]').innerText(), /cart\s+c-77/);
    assert.match(await page.locator('section[aria-labelledby="amounts"]').innerText(), /Description\s+Two mugs/);
    const timeline = await page.locator('ol.timeline').innerText();
    assert.match(timeline, /Payment created/);
    assert.ok((await page.locator('ol.timeline li').count()) >= 3, timeline);
    assert.match(timeline, /Ordered by success rate: Demo Alpha first: 100\.0 % over 1 recent EUR/);
    // Why Demo Alpha was first: the rule's strategy, its reason and each candidate's score.
    const decision = await page.locator('section[aria-labelledby="routing-decision"]').innerText();
    assert.match(decision, /Strategy\s+success rate/);
    assert.match(decision, /Reason\s+Demo Alpha first: 100\.0 % over 1 recent EUR [^\n]*card payments/);
    assert.match(decision, /Exploration\s+no/);
    const candidates = await page.getByRole('region', { name: 'Candidates table' }).innerText();
    assert.match(candidates, /1\s+Demo Alpha\s+pac_demo_alpha\s+100\.0\s%\s+1\s+100\.0 % over 1 recent EUR/);
    assert.match(candidates, /Demo Beta[\s\S]*Demo Gamma/);
    // Each attempt's path: a demo provider is sent the payment directly.
    const attempts = await page.getByRole('region', { name: 'Attempts table' }).innerText();
    assert.match(attempts, /Path/);
    assert.match(attempts, /\bdirect\b/);
    await shots(page, '06-payment');
  });

  test('the payment is refunded from its page after a confirmation', async () => {
    await page.getByRole('button', { name: 'Refund' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this payment?' });
    await dialog.waitFor();
    assert.equal(await dialog.getByLabel('Amount (EUR)').inputValue(), '12.50');
    await dialog.getByLabel('Reason (optional)').fill('customer asked');
    await shots(page, '07-refund-dialog');
    await dialog.getByRole('button', { name: 'Refund' }).click();
    // The banner says what the refund's answer said: a test refund succeeds at once.
    const banner = page.getByRole('status').filter({ hasText: 'Refund of €12.50' });
    await banner.waitFor();
    const refunds = await request(stack.baseUrl, 'GET', `/v1/payments/${paymentId}/refunds`, { key });
    assert.equal(refunds.body.data[0]?.status, 'successful', JSON.stringify(refunds.body));
    assert.equal(await banner.innerText(), 'Refund of €12.50 succeeded.');
    await eventually('the refund to settle', async () => {
      const payment = await request(stack.baseUrl, 'GET', `/v1/payments/${paymentId}`, { key });
      return payment.body.refunded_amount === 1250 ? true : undefined;
    });
    await page.reload();
    await page.getByRole('heading', { name: 'Refunds' }).waitFor();
    assert.match(await page.locator('section[aria-labelledby="refunds"]').innerText(), /€12\.50\s+successful/);
    await shots(page, '08-payment-refunded');
  });

  test('a webhook endpoint on a local receiver gets a signed delivery, which is resent from its page', async () => {
    await nav('Webhook endpoints');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(receiverUrl);
    await page.getByLabel('Description (optional)').fill('local receiver');
    // Choosing events re-renders the form; what was typed stays (the fields are not redrawn from props).
    const allEvents = page.getByLabel('All events, including types added later');
    await allEvents.uncheck();
    await allEvents.check();
    assert.deepEqual([await page.getByLabel('Endpoint URL').inputValue(), await page.getByLabel('Description (optional)').inputValue()],
      [receiverUrl, 'local receiver']);
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = page.getByRole('textbox', { name: `Signing secret of ${receiverUrl}` });
    assert.match(await secret.inputValue(), /^whsec_/);
    await shots(page, '09-webhook-created');
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    await page.getByLabel('Test event type').selectOption('payment.successful');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(/Test event evt_\w+ sent: 1 delivery/).waitFor();
    await shots(page, '10-webhook-endpoints');
    await eventually('the test event at the receiver', async () => (received.length === 1 ? true : undefined));
    const eventId = received[0].headers['svc-event-id'];
    assert.match(String(received[0].headers['svc-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);

    await nav('Deliveries');
    await page.getByRole('link', { name: 'payment.successful' }).first().click();
    await page.getByRole('heading', { name: /Attempt 1/ }).waitFor();
    await page.getByRole('button', { name: 'Resend' }).click();
    await page.getByText('Resent: attempt 2 answered 200.').waitFor();
    await page.getByRole('heading', { name: /Attempt 2 \(resent\): 200/ }).waitFor();
    await shots(page, '11-delivery');
    assert.equal(received.length, 2);
    assert.equal(received[1].headers['svc-event-id'], eventId, 'a resend replays the same event');
    await nav('Deliveries');
    // The first page loaded: filling the filters before would race its re-render.
    await page.getByRole('region', { name: 'Deliveries table' }).waitFor();
    await page.getByLabel('Status').selectOption('succeeded');
    await page.getByLabel('Event type').selectOption('payment.successful');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/status=succeeded/);
    await page.getByRole('link', { name: 'payment.successful' }).first().waitFor();
    await shots(page, '12-deliveries');
  });

  test('home shows the volume, success rate and failure reasons of the period', async () => {
    await nav('Home');
    await page.getByRole('heading', { name: 'Success rate' }).waitFor();
    // uPlot draws in an effect after the headings render: wait for the second chart's canvas.
    await page.locator('.chart canvas').nth(1).waitFor();
    assert.match(await page.locator('main').innerText(), /By provider \(EUR\)[\s\S]*By method \(EUR\)/);
    await shots(page, '14-home');
  });

  test('a read-only member is invited, joins from the mailed link, and sees no secret and no action', async () => {
    await nav('Team');
    const member = `reader-${Date.now().toString(36)}@example.com`;
    await page.getByLabel('Email').fill(member);
    await page.getByLabel('Role').selectOption('read_only');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation sent to ${member}.`).waitFor();
    await shots(page, '15-team');
    const link = await mailedLink(stack.mailbox, member, MAIL.invitation);
    assert.ok(link.startsWith(`${stack.baseUrl}/dashboard/invitation?token=`), link);

    const context = await browser.newContext({ viewport: WIDE });
    const reader = await context.newPage();
    watch(reader, seen);
    await reader.goto(link);
    await reader.getByLabel('Password').fill(PASSWORD);
    await reader.getByRole('button', { name: 'Accept invitation' }).click();
    await reader.getByRole('heading', { name: 'Home' }).waitFor();
    assert.match(await reader.locator('header').innerText(), /read-only/);
    await reader.getByRole('link', { name: 'API keys' }).click();
    await reader.getByRole('cell', { name: 'checkout server', exact: true }).waitFor();
    assert.equal(await reader.getByLabel('Key name').count(), 0, 'no key can be created');
    assert.equal(await reader.getByRole('button', { name: /Revoke/ }).count(), 0);
    await reader.goto(`${stack.baseUrl}/dashboard/payments/${paymentId}`);
    await reader.getByRole('heading', { name: 'Timeline' }).waitFor();
    assert.equal(await reader.getByRole('button', { name: 'Refund' }).count(), 0);
    await reader.getByRole('link', { name: '← Payments' }).click();
    await reader.goto(`${stack.baseUrl}/dashboard/developers/webhooks`);
    await reader.getByText(receiverUrl).waitFor();
    assert.equal(await reader.getByRole('button', { name: /Rotate|Add endpoint|Edit/ }).count(), 0);
    assert.doesNotMatch(await reader.content(), /whsec_|sk_test_[A-Za-z0-9]{8}/);

    // The owner removes the reader (confirmed in a dialog): the reader's session ends at once.
    await page.reload(); // the list was loaded before the reader joined
    await page.getByRole('heading', { level: 1, name: 'Team' }).waitFor();
    await page.getByRole('button', { name: `Remove ${member}` }).click();
    await page.getByRole('dialog', { name: `Remove ${member}?` }).getByRole('button', { name: 'Remove member' }).click();
    await page.getByText(`${member} was removed.`).waitFor();
    await reader.goto(`${stack.baseUrl}/dashboard/payments`);
    await reader.getByRole('heading', { name: 'Sign in' }).waitFor();
    await context.close();
  });

  test('an owner revokes a pending invitation from the Team page; its link no longer joins', async () => {
    await nav('Team');
    const invitee = `revoked-${Date.now().toString(36)}@example.com`;
    await page.getByLabel('Email').fill(invitee);
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation sent to ${invitee}.`).waitFor();
    const link = await mailedLink(stack.mailbox, invitee, MAIL.invitation);
    await page.getByRole('button', { name: `Revoke the invitation of ${invitee}` }).click();
    await page.getByRole('dialog', { name: `Revoke the invitation of ${invitee}?` }).getByRole('button', { name: 'Revoke invitation' }).click();
    await page.getByText(`The invitation of ${invitee} was revoked.`).waitFor();
    // The list is read again after the notice: the row leaves once it has.
    await page.getByRole('button', { name: `Revoke the invitation of ${invitee}` }).waitFor({ state: 'detached' });

    const context = await browser.newContext({ viewport: WIDE });
    const stranger = await context.newPage();
    watch(stranger, seen);
    await stranger.goto(link);
    await stranger.getByLabel('Password').fill(PASSWORD);
    await stranger.getByRole('button', { name: 'Accept invitation' }).click();
    await stranger.getByText(/unknown, already used or expired/).waitFor();
    await context.close();
  });

  test('verification is submitted, approved by an operator, and then a live key can be created', async () => {
    await nav('Home');
    await page.getByRole('switch', { name: 'Live mode' }).click();
    await page.getByRole('heading', { name: 'Before you go live' }).waitFor();
    await shots(page, '16-live-checklist');
    // Settings acting on live data wait too; only verification and the team stay open.
    await nav('IP allow-list');
    await page.getByRole('heading', { name: 'Before you go live' }).waitFor();
    await page.getByRole('link', { name: 'Verification' }).first().click();
    await page.getByLabel('Registered company name').fill('Browser Shop Ltd');
    await page.getByLabel('Registration number').fill('HRB 12345');
    await page.getByLabel('Country (2 letters)').fill('DE');
    await page.getByLabel("Documents' references, one a line").fill('incorporation-2024.pdf\ndirector-id.pdf');
    await shots(page, '17-verification-form');
    await page.getByRole('button', { name: 'Submit for verification' }).click();
    await page.getByText('Submitted: an operator reviews it').waitFor();
    await shots(page, '18-verification-pending');

    await approveInOperatorConsole();

    await page.reload();
    await nav('API keys');
    await page.getByLabel('Key name').fill('live checkout');
    await page.getByRole('button', { name: 'Create live key' }).click();
    assert.match(await page.getByRole('textbox', { name: 'Secret of “live checkout”' }).inputValue(), /sk_live_/);
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    await shots(page, '19-live-keys');
  });

  test('"Sign out everywhere", in the menu on a phone, ends the session after a confirmation', async () => {
    // At 390 px the header keeps to one row: who is signed in and signing out are in the menu.
    await page.setViewportSize(NARROW);
    assert.equal(await page.locator('header').getByRole('button', { name: 'Sign out everywhere' }).count(), 0);
    await page.getByRole('button', { name: 'Menu' }).click();
    const menu = page.getByRole('navigation', { name: 'Dashboard' });
    assert.match(await menu.innerText(), new RegExp(`${email.replace(/[.]/g, '\\.')} · owner`));
    await page.screenshot({ path: `${SHOTS}/20-menu-390.png`, fullPage: true });
    await menu.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const status = await page.evaluate("fetch('/dashboard/api/session').then((r) => r.status)");
    assert.equal(status, 401);
  });

  test('every page of the walk-through loaded from 127.0.0.1 only, with no CSP violation or script error', () => {
    const elsewhere = seen.requests.filter((url) => !url.startsWith(`${stack.baseUrl}/`));
    assert.deepEqual(elsewhere, [], 'every request went to this deployment on 127.0.0.1');
    assert.deepEqual(seen.problems, []);
  });
});
