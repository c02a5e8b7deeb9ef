import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { registerOwner, shots, skipWithoutChromium, startStackAndBrowser, type StackInBrowser } from './helpers/browser-page.js';
import { eventually } from './helpers/eventually.js';
import { request, startTestStack, type TestStack } from './helpers/stack.js';

// Disputes in a real browser against the whole stack: a merchant pays with the sandbox's `dispute`
// scenario through /v1, the demo provider opens a chargeback on each payment, the Disputes page
// lists them (open first, days left), the owner submits evidence with a tracking number and a small
// PDF and sees the dispute won, and accepts the other behind a confirmation. The payment lists its
// dispute and Home counts the disputed volume. Screenshots at 1280 and 390 px in dist/test-screenshots/.

/**
 * A PDF (what the upload checks is its type's signature) of 300 KB: far above the gateway's 64 KiB
 * body limit, which the session API's document route lifts as /v1's does.
 */
const PDF = Buffer.concat([
  Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n'), Buffer.alloc(300_000, ' '), Buffer.from('trailer << /Root 1 0 R >>\n%%EOF\n'),
]);

describe('disputes in the dashboard, in a real browser', { skip: skipWithoutChromium }, () => {
  let ui: StackInBrowser<TestStack>;
  let key = '';
  const disputes: Array<{ id: string; payment_id: string }> = [];
  const v1 = (method: string, path: string, body?: unknown) => request(ui.stack.baseUrl, method, path, { key, body });

  before(async () => {
    ui = await startStackAndBrowser(() => startTestStack());
  });
  after(() => ui?.close());

  const openDisputes = async () => {
    await ui.page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Disputes', exact: true }).click();
    await ui.page.getByRole('heading', { level: 1, name: 'Disputes', exact: true }).waitFor();
  };
  const disputeLink = (d: { id: string }) => ui.page.getByRole('row', { name: new RegExp(d.id) }).getByRole('link').first();

  test('sandbox disputes open on dispute-scenario payments and the Disputes page lists them open first', async () => {
    const { stack, page } = ui;
    await registerOwner(page, stack, 'Disputed shop', `disputes-${Date.now().toString(36)}@example.com`);
    await page.getByLabel('Key name').fill('shop');
    await page.getByRole('button', { name: 'Create test key' }).click();
    key = await page.getByRole('textbox', { name: 'Secret of “shop”' }).inputValue();
    await page.getByRole('button', { name: 'Done, I have saved it' }).click();

    for (const amount of [2500, 4200]) {
      const paid = await v1('POST', '/v1/payments', { amount, currency: 'EUR', payment_method: 'card', test_scenario: 'dispute' });
      assert.equal(paid.body.status, 'successful', JSON.stringify(paid.body));
      disputes.push(await eventually(`the dispute on ${paid.body.id}`, async () => (await v1('GET', `/v1/disputes?payment_id=${paid.body.id}`)).body.data[0]));
    }
    const closed = await v1('POST', '/v1/payments', { amount: 900, currency: 'EUR', payment_method: 'card', test_scenario: 'success' });
    assert.equal(closed.body.status, 'successful');

    await openDisputes();
    const open = page.getByRole('region', { name: 'Open disputes table' });
    await open.waitFor();
    for (const d of disputes) {
      const row = open.getByRole('row', { name: new RegExp(d.id) });
      assert.match(await row.innerText(), /Needs response[\s\S]*fraudulent[\s\S]*7 days left/i);
      assert.match(await row.innerText(), new RegExp(d.payment_id));
    }
    await page.getByText('No closed disputes.').waitFor();
    await shots(page, 'dashboard-disputes');
  });

  test('the owner submits evidence with a tracking number and a PDF, and the dispute is won', async () => {
    const { page, seen } = ui;
    const d = disputes[0]!;
    await disputeLink(d).click();
    await page.getByRole('heading', { level: 1, name: /€25\.00/ }).waitFor();
    await page.getByText(/Evidence is due .* \(7 days left\)/).waitFor();
    await page.getByLabel('Shipping carrier').fill('DHL');
    await page.getByLabel('Tracking number').fill('JD014600003828374920');
    await page.getByLabel('Document (PDF, PNG or JPEG, up to 4 MiB)').setInputFiles({ name: 'delivery-receipt.pdf', mimeType: 'application/pdf', buffer: PDF });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.getByRole('listitem').filter({ hasText: 'delivery-receipt.pdf' }).filter({ hasText: '293 KiB' }).waitFor();
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Evidence saved as a draft.', { exact: false }).waitFor();
    await shots(page, 'dashboard-dispute-evidence');

    await page.getByRole('button', { name: 'Submit evidence' }).click();
    const dialog = page.getByRole('dialog', { name: 'Submit this evidence?' });
    await dialog.getByText('one document').waitFor();
    await dialog.getByRole('button', { name: 'Submit evidence' }).click();
    await page.getByText('Evidence submitted.', { exact: false }).waitFor();
    await page.getByRole('heading', { level: 1, name: /€25\.00\s*under review/i }).waitFor();

    const staged = (await v1('GET', `/v1/disputes/${d.id}`)).body;
    assert.equal(staged.evidence.shipping_tracking_number, 'JD014600003828374920');
    assert.equal(staged.documents.length, 1);
    assert.deepEqual(staged.evidence.documents, [staged.documents[0].id]);

    // The demo provider decides a few seconds later; the page shows it once reloaded.
    await eventually('the demo provider to decide', async () => ((await v1('GET', `/v1/disputes/${d.id}`)).body.status === 'won' ? true : undefined));
    await page.reload();
    await page.getByRole('heading', { level: 1, name: /€25\.00\s*won/i }).waitFor();
    const history = page.getByRole('region', { name: 'History' });
    assert.match(await history.innerText(), /Dispute opened: fraudulent[\s\S]*Dispute won, 25\.00 EUR reinstated/);
    assert.match(await page.getByRole('region', { name: 'Evidence' }).innerText(), /JD014600003828374920[\s\S]*delivery-receipt\.pdf/);
    await shots(page, 'dashboard-dispute-won');
    assert.deepEqual(seen.problems, []);
  });

  test('the owner accepts the other dispute behind a confirmation; the payment and Home show the disputes', async () => {
    const { page, seen } = ui;
    const d = disputes[1]!;
    await openDisputes();
    await disputeLink(d).click();
    await page.getByRole('heading', { level: 1, name: /€42\.00/ }).waitFor();
    await page.getByRole('button', { name: 'Accept dispute' }).click();
    const dialog = page.getByRole('dialog', { name: 'Accept this dispute?' });
    assert.match(await dialog.innerText(), /The cardholder keeps €42\.00, already withdrawn from your balance/);
    await shots(page, 'dashboard-dispute-accept');
    await dialog.getByRole('button', { name: 'Accept dispute' }).click();
    await page.getByText('Dispute accepted.').waitFor();
    await page.getByRole('heading', { level: 1, name: /€42\.00\s*accepted/i }).waitFor();
    assert.equal((await v1('GET', `/v1/disputes/${d.id}`)).body.status, 'accepted');
    assert.equal(await page.getByRole('button', { name: 'Submit evidence' }).count(), 0);

    await openDisputes();
    await page.getByText('No open disputes.').waitFor();
    const closedRows = page.getByRole('region', { name: 'Disputes table' });
    assert.match(await closedRows.getByRole('row', { name: new RegExp(d.id) }).innerText(), /accepted/);

    await page.getByRole('row', { name: new RegExp(d.id) }).getByRole('link', { name: d.payment_id }).click();
    const listed = page.getByRole('region', { name: 'Disputes' });
    await listed.waitFor();
    assert.match(await listed.innerText(), /€42\.00\s*accepted\s*fraudulent · chargeback/);

    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Home', exact: true }).click();
    const figures = page.getByRole('region', { name: 'Headline figures in EUR' });
    await figures.waitFor();
    // Two disputes (25.00 + 42.00) over three succeeded payments.
    assert.match(await figures.innerText(), /Disputed\s*€67\.00\s*2 disputes of these payments/);
    assert.match(await figures.innerText(), /Dispute rate\s*66\.7 %/);
    await shots(page, 'dashboard-home-disputes');
    assert.deepEqual(seen.problems, []);
  });
});
