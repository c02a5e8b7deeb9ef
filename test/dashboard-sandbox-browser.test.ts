import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { registerOwner, shots, skipWithoutChromium, startStackAndBrowser, type StackInBrowser } from './helpers/browser-page.js';
import { startTestStack, type TestStack } from './helpers/stack.js';

// Developers > Sandbox in a real browser against the whole stack: an owner sets how a demo provider
// behaves for the project's test payments, ends the outage it set and removes the segment.
// Screenshots in dist/test-screenshots/.

describe('the sandbox page in a real browser', { skip: skipWithoutChromium }, () => {
  let ui: StackInBrowser<TestStack>;

  before(async () => {
    ui = await startStackAndBrowser(() => startTestStack());
  });
  after(() => ui?.close());

  test('an owner sets a demo provider\'s behaviour, ends its outage and removes it', async () => {
    const { stack, page, seen } = ui;
    await registerOwner(page, stack, 'Sandbox shop', `sandbox-${Date.now().toString(36)}@example.com`);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Sandbox', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Sandbox' }).waitFor();
    await page.getByText('Nothing set: the demo providers approve every payment.').waitFor();

    await page.getByLabel('Demo provider', { exact: true }).selectOption('demo_beta');
    await page.getByLabel('Payment method', { exact: true }).selectOption('card');
    await page.getByLabel('Approves (% of answered payments)', { exact: true }).fill('95');
    await page.getByLabel('Outage from now (minutes)', { exact: true }).fill('10');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('demo_beta card EUR * saved.').waitFor();
    const row = page.getByRole('row', { name: /demo_beta/ });
    await row.getByRole('cell', { name: /^until / }).waitFor();
    assert.match(await row.innerText(), /card EUR \*[\s\S]*95\.0 %[\s\S]*0\.0 %[\s\S]*0 ms/);
    await shots(page, 'dashboard-sandbox');

    await page.getByRole('button', { name: 'End the outage of demo_beta card EUR *' }).click();
    await row.getByRole('cell', { name: 'none', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Remove demo_beta card EUR *' }).click();
    await page.getByText('Nothing set: the demo providers approve every payment.').waitFor();
    assert.deepEqual(seen.problems, []);
  });
});
