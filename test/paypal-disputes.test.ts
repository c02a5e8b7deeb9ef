// PayPal's customer disputes through the REST gateway, with @paypal/paypal-server-sdk pointed at its
// stand-in: a captured PayPal payment is disputed (CUSTOMER.DISPUTE.CREATED, verified with PayPal as
// every PayPal webhook), the merchant's evidence with a PDF reaches provide-evidence through the
// SDK's request builder (the multipart `input` and the file), and CUSTOMER.DISPUTE.RESOLVED in the
// seller's favour gives the money back, once. Accept is accept-claim.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startLicensedProviderStack, type LicensedProviderStack } from './helpers/licensed-provider-fixture.js';
import { deliverNotification } from './helpers/provider-notifications.js';
import { signedEvent, startPayPalStandIn, type PayPalStandIn } from './helpers/paypal-stand-in.js';
import { request } from './helpers/stack.js';

const CLIENT_ID = `standin-client-${randomBytes(6).toString('hex')}`;
const SECRET = randomBytes(24).toString('hex');
const WEBHOOK_ID = `WH-${randomBytes(8).toString('hex').toUpperCase()}`;
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(64, 0x20)]);

describe('disputes at PayPal, through the REST gateway', () => {
  let stack: LicensedProviderStack;
  let pp: PayPalStandIn;
  let m: Awaited<ReturnType<LicensedProviderStack['newMerchantKey']>> & { account: string };

  before(async () => {
    pp = await startPayPalStandIn({ clients: { [CLIENT_ID]: SECRET }, webhookIds: { [CLIENT_ID]: WEBHOOK_ID } });
    stack = await startLicensedProviderStack({ env: { PROVIDER_SECRET_KEY: randomBytes(32).toString('hex') } });
    const merchant = await stack.newMerchantKey('live');
    const account = await stack.connectLive(merchant.projectId, {
      provider: 'paypal', name: 'PayPal', fee_bps: 290, fee_fixed: 35,
      credentials: { client_id: CLIENT_ID, client_secret: SECRET, webhook_id: WEBHOOK_ID, api_base_url: pp.baseUrl },
    });
    m = { ...merchant, account };
  });
  after(async () => {
    await stack?.close();
    await pp?.close();
  });

  const api = (method: string, path: string, body?: unknown) => request(stack.baseUrl, method, path, { key: m.secret, body });
  async function send(type: string, resource: Record<string, unknown>) {
    const res = await deliverNotification(stack.baseUrl, 'paypal', m.account, signedEvent(type, resource, WEBHOOK_ID));
    assert.equal(res.status, 200, await res.text());
  }
  /** A wallet payment approved on PayPal's page and captured on its webhook, then disputed by the buyer. */
  async function disputed() {
    const res = await stack.pay(m.secret, { payment_method: { type: 'wallet' }, return_url: 'https://shop.example/done' });
    assert.equal(res.body.status, 'processing', JSON.stringify(res.body));
    const orderId = res.body.attempts[0].provider_payment_id;
    await send('CHECKOUT.ORDER.APPROVED', { ...pp.approve(orderId) });
    assert.equal((await api('GET', `/v1/payments/${res.body.id}`)).body.status, 'successful');
    const atPayPal = pp.openDispute(orderId);
    await send('CUSTOMER.DISPUTE.CREATED', structuredClone(atPayPal));
    const d = (await api('GET', `/v1/disputes?payment_id=${res.body.id}`)).body.data[0];
    return { payment: res.body, atPayPal, d };
  }
  const movements = async (disputeId: string) => (await stack.query(
    'SELECT kind FROM payments.dispute_fund_movements WHERE dispute_id = $1 ORDER BY seq', [disputeId],
  )).rows.map((r) => r.kind);

  test('evidence with a PDF reaches provide-evidence; RESOLVED in the seller\'s favour gives the money back once', async () => {
    const { payment, atPayPal, d } = await disputed();
    assert.deepEqual(
      [d.provider_dispute_id, d.amount, d.currency, d.reason, d.provider_reason, d.stage, d.status, d.funds_withdrawn, d.attempt_id],
      [atPayPal.dispute_id, 2500, 'EUR', 'product_not_received', 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', 'chargeback', 'needs_response', true, payment.attempts[0].id],
    );
    const doc = await api('POST', `/v1/disputes/${d.id}/documents`, { filename: 'label.pdf', type: 'application/pdf', content: PDF.toString('base64') });
    assert.equal(doc.status, 201, JSON.stringify(doc.body));
    const submitted = await api('POST', `/v1/disputes/${d.id}/evidence`, {
      shipping_carrier: 'DHL', shipping_tracking_number: 'JD014600003828374920', product_description: 'A lamp', documents: [doc.body.id], submit: true,
    });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    assert.equal(submitted.body.status, 'under_review');
    assert.equal(pp.providedEvidence.length, 1);
    const [given] = pp.providedEvidence;
    assert.deepEqual(given.input.evidences, [
      { evidence_type: 'PROOF_OF_FULFILLMENT', evidence_info: { tracking_info: [{ carrier_name: 'DHL', tracking_number: 'JD014600003828374920' }] } },
      { evidence_type: 'OTHER', notes: 'Product: A lamp' },
    ]);
    assert.deepEqual(given.files, [{ filename: 'label.pdf', contentType: 'application/pdf', pdf: true }]);
    assert.equal(atPayPal.status, 'UNDER_REVIEW');

    const resolved = structuredClone(pp.resolveDispute(atPayPal.dispute_id, 'RESOLVED_SELLER_FAVOUR'));
    await send('CUSTOMER.DISPUTE.RESOLVED', resolved);
    await send('CUSTOMER.DISPUTE.RESOLVED', resolved);
    const won = (await api('GET', `/v1/disputes/${d.id}`)).body;
    assert.deepEqual([won.status, won.funds_withdrawn], ['won', false]);
    assert.deepEqual(await movements(d.id), ['withdrawal', 'reinstatement']);
  });

  test('accept is accept-claim; the claim stays with the buyer', async () => {
    const { atPayPal, d } = await disputed();
    const accepted = await api('POST', `/v1/disputes/${d.id}/accept`);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.deepEqual([accepted.body.status, accepted.body.funds_withdrawn], ['accepted', true]);
    assert.ok(pp.requests.some((r) => r.method === 'POST' && r.path === `/v1/customer/disputes/${atPayPal.dispute_id}/accept-claim`));
    assert.deepEqual([atPayPal.status, atPayPal.dispute_outcome.outcome_code], ['RESOLVED', 'ACCEPTED']);
    assert.deepEqual(await movements(d.id), ['withdrawal']);
  });
});
