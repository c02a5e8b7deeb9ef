import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { registerOwner, shots, skipWithoutChromium, startStackAndBrowser, type StackInBrowser } from './helpers/browser-page.js';
import { startTestStack, type TestStack } from './helpers/stack.js';
import { startStripeStandIn, type StripeStandIn } from './helpers/stripe-stand-in.js';

// Settings > Provider accounts in a real browser against the whole stack (PROVIDER_SECRET_KEY set,
// Stripe's stand-in as the provider): an owner connects a Stripe test account through the form, the
// secrets leave no trace in the page, a test says OK, and disabling asks for confirmation first.
// Screenshots at 1280 and 390 px in dist/test-screenshots/.

const SECRET_KEY = `sk_test_${randomBytes(12).toString('hex')}`;
const WEBHOOK_SECRET = `whsec_${randomBytes(12).toString('hex')}`;

describe('the provider accounts page in a real browser', { skip: skipWithoutChromium }, () => {
  let stripe: StripeStandIn;
  let ui: StackInBrowser<TestStack>;

  before(async () => {
    stripe = await startStripeStandIn({ secretKeys: [SECRET_KEY] });
    ui = await startStackAndBrowser(() => startTestStack({ env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') } }));
  });
  after(async () => {
    await ui?.close();
    await stripe?.close();
  });

  test('an owner connects Stripe, tests it and disables it with confirmation; no secret stays in the page', async () => {
    const { stack, page, seen } = ui;
    await registerOwner(page, stack, 'Provider shop', `providers-${Date.now().toString(36)}@example.com`);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Provider accounts', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Provider accounts' }).waitFor();
    await page.getByText('No test provider account yet.').waitFor();

    await page.getByLabel('Provider', { exact: true }).selectOption('stripe');
    const secret = page.getByLabel('secret_key', { exact: true });
    assert.deepEqual([await secret.getAttribute('type'), await secret.getAttribute('autocomplete')], ['password', 'off']);
    await page.getByLabel('Account name').fill('Stripe EU');
    await secret.fill(SECRET_KEY);
    await page.getByLabel('webhook_secret', { exact: true }).fill(WEBHOOK_SECRET);
    await page.getByLabel('api_base_url (optional)').fill(stripe.baseUrl);
    await page.getByLabel('Currencies').fill('EUR, USD');
    await page.getByLabel('Fee %').fill('1.4');
    await page.getByLabel('Fixed fee').fill('25');
    await shots(page, 'dashboard-provider-connect');
    await page.getByRole('button', { name: 'Connect account' }).click();
    await page.getByText('Stripe EU connected.').waitFor();
    const row = page.getByRole('row', { name: /Stripe EU/ });
    assert.match(await row.innerText(), /EUR, USD[\s\S]*1\.40% \+ 25[\s\S]*active/i);
    assert.equal(await secret.inputValue(), '', 'the form is cleared');
    const html = await page.content();
    assert.ok(!html.includes(SECRET_KEY) && !html.includes(WEBHOOK_SECRET), 'a secret is in the page');

    await page.getByRole('button', { name: 'Test Stripe EU' }).click();
    await row.getByText('Credentials OK').waitFor();
    await shots(page, 'dashboard-provider-accounts');

    await page.getByRole('button', { name: 'Disable Stripe EU' }).click();
    const dialog = page.getByRole('dialog', { name: 'Disable “Stripe EU”?' });
    await dialog.getByRole('button', { name: 'Disable account' }).click();
    await page.getByText('Stripe EU disabled.').waitFor();
    // The notice shows before the list's reload lands, so wait for the row itself to change.
    await row.getByRole('cell', { name: 'disabled', exact: true }).waitFor();
    assert.doesNotMatch(await row.innerText(), /\bactive\b/);
    assert.deepEqual(seen.problems, []);
  });
});
