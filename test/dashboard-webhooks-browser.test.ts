import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, registerOwner, shots, skipWithoutChromium, watch, WIDE } from './helpers/browser-page.js';
import { startTestStack, type TestStack } from './helpers/stack.js';
import { eventually, startReceiver, type Receiver } from './webhooks-support.js';

// The webhooks page's health section and recovery in a real browser against the whole stack: an
// endpoint with a maximum rate, failing at its receiver, shows since when it fails, its success rate
// and next retry; "Resend failed…" resends what failed since a time once the receiver is fixed.
// (Disabling after days of failures needs a moved clock: test/webhooks-health.test.ts.)

describe('webhook endpoint health in the dashboard', { skip: skipWithoutChromium }, () => {
  let stack: TestStack;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  const seen = { requests: [] as string[], problems: [] as string[] };

  before(async () => {
    stack = await startTestStack({ env: { WEBHOOK_MAX_ATTEMPTS: '1' } });
    receiver = await startReceiver(500);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: WIDE });
    watch(page, seen);
  });
  after(async () => {
    await browser?.close();
    await receiver?.close();
    await stack?.close();
  });

  test('rate set in the form; failing shown with its rate and next step; failed deliveries resent since a time', async () => {
    await registerOwner(page, stack, 'Hooks shop', `hooks-${Date.now().toString(36)}@example.com`);
    await page.goto(`${stack.baseUrl}/dashboard/developers/webhooks`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Maximum deliveries per second (optional)').fill('5');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();
    const card = page.getByRole('listitem').filter({ hasText: receiver.url });
    await card.getByText('At most 5 deliveries per second.').waitFor();

    await page.getByLabel('Test event type').selectOption('payment.successful');
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(/Test event evt_\w+ sent: 1 delivery/).waitFor();
    await eventually(async () => (receiver.received.length === 1 ? true : undefined));
    await eventually(async () => {
      await page.reload();
      return (await card.getByText(/Failing since/).count()) > 0 ? true : undefined;
    }, 15_000, 'the card to say the endpoint is failing');
    assert.match(await card.innerText(), /Last 24 h: 0\.0 % succeeded of 1 attempt/);
    await shots(page, 'dashboard-webhook-failing');

    receiver.setBehaviour(200);
    await card.getByRole('button', { name: 'Resend failed…' }).click();
    const form = page.getByRole('form', { name: `Resend failed deliveries to ${receiver.url}` });
    await form.getByRole('button', { name: 'Resend' }).click();
    await page.getByText(/1 failed delivery to .* being resent\./).waitFor();
    await eventually(async () => (receiver.received.length === 2 ? true : undefined));
    assert.equal(receiver.received[1].headers['svc-event-id'], receiver.received[0].headers['svc-event-id']);
    await eventually(async () => {
      await page.reload();
      return /Last 24 h: 50\.0 % succeeded of 2 attempts/.test(await card.innerText()) ? true : undefined;
    }, 15_000, 'the success rate to count the resend');
    assert.equal(await card.getByText(/Failing since/).count(), 0, 'a success ends the failing run');
    await shots(page, 'dashboard-webhook-recovered');
    assert.deepEqual(seen.problems, []);
  });
});
